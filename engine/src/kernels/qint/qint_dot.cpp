// The dot_rows this build runs (qint_kernels.h), chosen at build time by the core's
// instruction set: Helium on the Cortex-M55, the DSP extension on the Cortex-M4 and M7,
// the plain-C twin (reference.cpp) everywhere else. Each keeps one named accumulator per
// row (kRows <= 4 of them) and loads the shared x once per step for all rows.
#include <cstring>

#include "qint/qint_kernels.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define FOCAL_QINT_DOT_MVE 1
#elif defined(__ARM_FEATURE_DSP) && !defined(__aarch64__)
#include <arm_acle.h>
#define FOCAL_QINT_DOT_DSP 1
#endif

namespace focal {
namespace kernels {
namespace {

// A row block's accumulators, started at the bias.
template <size_t kRows>
struct Sums {
  int32_t v[kRows];
  explicit Sums(const int32_t* bias) {
    for (size_t r = 0; r < kRows; ++r) v[r] = bias != nullptr ? bias[r] : 0;
  }
};

#if defined(FOCAL_QINT_DOT_MVE)
// 16 k per step: VCTP8 predicates the tail, the zeroing loads read nothing past the row,
// VMLADAVA.S8 adds the 16 products into the row's core register, exactly.
template <size_t kRows>
void dot_block(const int8_t* x, const int8_t* w, size_t w_stride, size_t k, const int32_t* bias,
               int32_t* out) {
  Sums<kRows> s(bias);
  for (size_t i = 0; i < k; i += 16) {
    const mve_pred16_t live = vctp8q(uint32_t(k - i));
    const int8x16_t xv = vldrbq_z_s8(x + i, live);
    for (size_t r = 0; r < kRows; ++r) {
      s.v[r] = vmladavaq_s8(s.v[r], xv, vldrbq_z_s8(w + r * w_stride + i, live));
    }
  }
  for (size_t r = 0; r < kRows; ++r) out[r] = s.v[r];
}
constexpr const char* kIsa = "mve";
#elif defined(FOCAL_QINT_DOT_DSP)
// 4 k per step: one word of x and of each row (LDR: unaligned access is allowed on
// v7E-M), SXTB16 sign-extends bytes 0 and 2 into two 16-bit halves and, of the word
// rotated by 8, bytes 1 and 3; SMLAD adds both halves' products. The pairing is the same
// for x and w, so the sum is the plain dot product.
inline uint32_t load_word(const int8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint32_t rotate_right_8(uint32_t v) { return (v >> 8) | (v << 24); }

template <size_t kRows>
void dot_block(const int8_t* x, const int8_t* w, size_t w_stride, size_t k, const int32_t* bias,
               int32_t* out) {
  Sums<kRows> s(bias);
  size_t i = 0;
  for (; i + 4 <= k; i += 4) {
    const uint32_t xv = load_word(x + i);
    const int16x2_t x02 = __sxtb16(xv);
    const int16x2_t x13 = __sxtb16(rotate_right_8(xv));
    for (size_t r = 0; r < kRows; ++r) {
      const uint32_t wv = load_word(w + r * w_stride + i);
      s.v[r] = __smlad(x02, __sxtb16(wv), s.v[r]);
      s.v[r] = __smlad(x13, __sxtb16(rotate_right_8(wv)), s.v[r]);
    }
  }
  for (; i < k; ++i) {
    for (size_t r = 0; r < kRows; ++r) s.v[r] += int32_t(x[i]) * int32_t(w[r * w_stride + i]);
  }
  for (size_t r = 0; r < kRows; ++r) out[r] = s.v[r];
}
constexpr const char* kIsa = "dsp";
#endif

#if defined(FOCAL_QINT_DOT_MVE) || defined(FOCAL_QINT_DOT_DSP)
void dot_rows_native(const int8_t* x, const int8_t* w, size_t w_stride, size_t k, size_t rows,
                     const int32_t* bias, int32_t* sums) {
  switch (rows) {
    case 4: return dot_block<4>(x, w, w_stride, k, bias, sums);
    case 3: return dot_block<3>(x, w, w_stride, k, bias, sums);
    case 2: return dot_block<2>(x, w, w_stride, k, bias, sums);
    default: return dot_block<1>(x, w, w_stride, k, bias, sums);
  }
}
constexpr QIntKernelTable kNativeQInt{kIsa, dot_rows_native};
#endif

}  // namespace

const QIntKernelTable& qint_kernels() {
#if defined(FOCAL_QINT_DOT_MVE) || defined(FOCAL_QINT_DOT_DSP)
  return kNativeQInt;
#else
  return qint_reference_kernels();
#endif
}

}  // namespace kernels
}  // namespace focal
