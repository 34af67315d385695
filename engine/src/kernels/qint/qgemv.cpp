// The static-int8 matrix-vector products: blocks of kQIntRows outputs through the
// build's dot_rows, each sum requantized as it comes (no int32 buffer of n). On Helium
// (Cortex-M55) a block's four sums are requantized and stored as one vector: at -Os the
// scalar requantization of each output cost more instructions than the Helium products
// themselves (the int8 classifier example ran in 0.99x the f32 build's count). A layer's
// token rows (qgemm_s8) go kQIntTokens at a time through the build's dot_tokens, which
// loads and sign-extends each weight word once for all of them (the M4 and M7).
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define FOCAL_QGEMV_MVE 1
#elif defined(__ARM_FEATURE_DSP) && !defined(__aarch64__)
#include <arm_acle.h>

#include <cstring>
#define FOCAL_QGEMM_SXTB16 1
#endif

namespace focal {
namespace kernels {
namespace {

// Calls block(j0, rows, sums) for each block of up to kQIntRows outputs, in order: the
// exact int32 sums of outputs j0 .. j0 + rows - 1 from the build's dot_rows.
template <class Block>
void for_each_block(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x, Block block) {
  int32_t sums[kQIntRows];
  for (size_t j0 = 0; j0 < p.n; j0 += kQIntRows) {
    const size_t rows = p.n - j0 < kQIntRows ? p.n - j0 : kQIntRows;
    kernels.dot_rows(x, p.w + j0 * p.w_stride, p.w_stride, p.k, rows,
                     p.bias != nullptr ? p.bias + j0 : nullptr, sums);
    block(j0, rows, sums);
  }
}

#if defined(FOCAL_QGEMV_MVE)
// qint::requantize on four lanes, the same integers. The shift splits into a left and a
// right part as there; VQRDMULH is (2 a b + 2^31) >> 32 = (a b + 2^30) >> 31, the
// doubling high multiply (it saturates only for INT32_MIN twice, and multipliers are
// positive); VRSHL by -e is a right shift rounding ties upward, so a negative value
// first gives up 1 (saturating) where e > 0, which makes its ties round away from zero:
// floor((x - 1 + 2^(e-1)) / 2^e) for x < 0.
int32x4_t requantize4(int32x4_t acc, const int32_t* multiplier, const int32_t* shift, mve_pred16_t live) {
  const int32x4_t zero = vdupq_n_s32(0);
  const int32x4_t s = vldrwq_z_s32(shift, live);
  const int32x4_t left = vmaxq_s32(s, zero);
  const int32x4_t right = vmaxq_s32(vnegq_s32(s), zero);
  const int32x4_t high = vqrdmulhq_s32(vshlq_s32(acc, left), vldrwq_z_s32(multiplier, live));
  const int32x4_t give_up = vpselq_s32(vshrq_n_s32(high, 31), zero, vcmpgtq_n_s32(right, 0));
  return vrshlq_s32(vqaddq_s32(high, give_up), vnegq_s32(right));
}

// Calls store(j0, requantized sums of outputs j0.., predicate of the live lanes) per block.
template <class Store>
void for_each_requantized_block(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x,
                                Store store) {
  for_each_block(kernels, p, x, [&](size_t j0, size_t rows, const int32_t* sums) {
    const mve_pred16_t live = vctp32q(uint32_t(rows));
    store(j0, requantize4(vldrwq_z_s32(sums, live), p.multiplier + j0, p.shift + j0, live), live);
  });
}
static_assert(kQIntRows == 4, "a block is one vector of four int32 lanes");
#else
// Calls store(j, requantized sum of output j) for every output, in order.
template <class Store>
void for_each_requantized(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x,
                          Store store) {
  for_each_block(kernels, p, x, [&](size_t j0, size_t rows, const int32_t* sums) {
    for (size_t r = 0; r < rows; ++r) {
      const size_t j = j0 + r;
      store(j, qint::requantize(sums[r], p.multiplier[j], p.shift[j]));
    }
  });
}
#endif

}  // namespace

void qgemv_s8(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x, int8_t* y) {
#if defined(FOCAL_QGEMV_MVE)
  for_each_requantized_block(kernels, p, x, [&](size_t j0, int32x4_t v, mve_pred16_t live) {
    v = vaddq_n_s32(v, p.output_zero_point);
    v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(p.output_min)), vdupq_n_s32(p.output_max));
    vstrbq_p_s32(y + j0, v, live);  // the low byte of each lane
  });
#else
  // The record's fields in locals, read once: y's int8_t stores may alias anything, so
  // read through `p` they were reloaded for every output (the int8 encoder's projections:
  // 1.1% of its M4 instructions).
  const int32_t* const multiplier = p.multiplier;
  const int32_t* const shift = p.shift;
  const int32_t zero_point = p.output_zero_point, lo = p.output_min, hi = p.output_max;
  for_each_block(kernels, p, x, [&](size_t j0, size_t rows, const int32_t* sums) {
    for (size_t r = 0; r < rows; ++r) {
      const size_t j = j0 + r;
      y[j] = int8_t(qint::clamp(qint::requantize(sums[r], multiplier[j], shift[j]) + zero_point, lo, hi));
    }
  });
#endif
}

void qint_pack_tokens(const int8_t* x, size_t rows, size_t k, uint32_t* packed) {
  const auto half = [k](const int8_t* row, size_t i) { return uint32_t(uint16_t(i < k ? row[i] : 0)); };
  for (size_t i = 0; i < k; i += 4) {
    for (size_t t = 0; t < kQIntTokens; ++t, packed += 2) {
      if (t >= rows) {
        packed[0] = packed[1] = 0;
        continue;
      }
      const int8_t* row = x + t * k;
#if defined(FOCAL_QGEMM_SXTB16)
      if (i + 4 <= k) {  // SXTB16 makes the pairing itself: bytes 0 and 2, then 1 and 3
        uint32_t word;
        std::memcpy(&word, row + i, sizeof(word));
        packed[0] = uint32_t(__sxtb16(word));
        packed[1] = uint32_t(__sxtb16(word >> 8 | word << 24));  // rotated by 8
        continue;
      }
#endif
      packed[0] = half(row, i) | half(row, i + 2) << 16;
      packed[1] = half(row, i + 1) | half(row, i + 3) << 16;
    }
  }
}

namespace {

// Output j of the kQIntTokens rows whose sums are given, requantized into y (row stride n).
FOCAL_QINT_INLINE void store_requantized(const int32_t* sums, size_t rows, const qint::Requantizer& r,
                                         int32_t zero_point, int32_t lo, int32_t hi, int8_t* y, size_t n) {
  for (size_t t = 0; t < rows; ++t, y += n) *y = int8_t(qint::clamp(qint::requantize(sums[t], r) + zero_point, lo, hi));
}

}  // namespace

void qgemm_s8(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x, size_t rows, int8_t* y,
              uint32_t* scratch) {
  if (kernels.dot_tokens == nullptr) {
    for (size_t t = 0; t < rows; ++t) qgemv_s8(kernels, p, x + t * p.k, y + t * p.n);
    return;
  }
  // The record in locals: y's int8_t stores may alias anything, so read through `p` its
  // fields were reloaded for every output.
  const QIntDotTokensFn dot = kernels.dot_tokens;
  const size_t n = p.n, k = p.k, w_stride = p.w_stride;
  const int8_t* const w = p.w;
  const int32_t *const bias = p.bias, *const multiplier = p.multiplier, *const shift = p.shift;
  const int32_t zero_point = p.output_zero_point, lo = p.output_min, hi = p.output_max;
  for (size_t t0 = 0; t0 < rows; t0 += kQIntTokens) {
    const size_t group = rows - t0 < kQIntTokens ? rows - t0 : kQIntTokens;
    qint_pack_tokens(x + t0 * k, group, k, scratch);
    int8_t* const out = y + t0 * n;
    for (size_t j = 0; j < n; ++j) {
      const int32_t b = bias != nullptr ? bias[j] : 0;
      int32_t sums[kQIntTokens] = {b, b, b, b};
      dot(scratch, w + j * w_stride, k, sums);
      const qint::Requantizer r = qint::make_requantizer(multiplier[j], shift[j]);
      if (group == kQIntTokens) {  // a constant count: the four stores unrolled
        store_requantized(sums, kQIntTokens, r, zero_point, lo, hi, out + j, n);
      } else {
        store_requantized(sums, group, r, zero_point, lo, hi, out + j, n);
      }
    }
  }
}

void qgemv_s16_accumulate(const QIntKernelTable& kernels, const QGemvParams& p,
                          const int8_t* x, int16_t* y) {
  // v is at most 2^31 / 2 in magnitude after a right shift; clamp before adding so the
  // sum cannot overflow int32.
#if defined(FOCAL_QGEMV_MVE)
  for_each_requantized_block(kernels, p, x, [&](size_t j0, int32x4_t v, mve_pred16_t live) {
    v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(-65536)), vdupq_n_s32(65536));
    v = vaddq_s32(vldrhq_z_s32(y + j0, live), v);
    v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(INT16_MIN)), vdupq_n_s32(INT16_MAX));
    vstrhq_p_s32(y + j0, v, live);  // the low half of each lane
  });
#else
  for_each_requantized(kernels, p, x, [&](size_t j, int32_t v) {
    y[j] = qint::saturate_int16(int32_t(y[j]) + qint::clamp(v, -65536, 65536));
  });
#endif
}

}  // namespace kernels
}  // namespace focal
