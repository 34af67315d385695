// The static-int8 matrix-vector products: blocks of kQIntRows outputs through the
// build's dot_rows, each sum requantized as it comes (no int32 buffer of n). On Helium
// (Cortex-M55) a block's four sums are requantized and stored as one vector: at -Os the
// scalar requantization of each output cost more instructions than the Helium products
// themselves (the int8 classifier example ran in 0.99x the f32 build's count). A layer's
// token rows (qgemm_s8) go kQIntTokens at a time through the build's dot_tokens, which
// loads and sign-extends each weight word once for all of them (the M4 and M7), or, on
// Helium, many at a time through rows_tokens per block of four outputs, whose
// requantization record is then taken apart once for all of them.
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define FOCAL_QGEMV_MVE 1
#elif defined(__ARM_FEATURE_DSP) && !defined(__aarch64__)
#include <cstring>
#define FOCAL_QGEMM_SXTB16 1
#endif
#if defined(FOCAL_QGEMM_SXTB16) || defined(__ARM_FEATURE_SAT)
#include <arm_acle.h>  // __sxtb16, __ssat
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
// floor((x - 1 + 2^(e-1)) / 2^e) for x < 0. The record is taken apart once per block.
struct Requantizer4 {
  int32x4_t multiplier, left, neg_right;
  mve_pred16_t rounds;  // lanes with a right shift
};

Requantizer4 make_requantizer4(const int32_t* multiplier, const int32_t* shift, mve_pred16_t live) {
  const int32x4_t zero = vdupq_n_s32(0);
  const int32x4_t s = vldrwq_z_s32(shift, live);
  const int32x4_t right = vmaxq_s32(vnegq_s32(s), zero);
  return {vldrwq_z_s32(multiplier, live), vmaxq_s32(s, zero), vnegq_s32(right), vcmpgtq_n_s32(right, 0)};
}

int32x4_t requantize4(int32x4_t acc, const Requantizer4& r) {
  const int32x4_t high = vqrdmulhq_s32(vshlq_s32(acc, r.left), r.multiplier);
  const int32x4_t give_up = vpselq_s32(vshrq_n_s32(high, 31), vdupq_n_s32(0), r.rounds);
  return vrshlq_s32(vqaddq_s32(high, give_up), r.neg_right);
}

int32x4_t requantize4(int32x4_t acc, const int32_t* multiplier, const int32_t* shift, mve_pred16_t live) {
  return requantize4(acc, make_requantizer4(multiplier, shift, live));
}

// qgemm_s8 through the build's rows_tokens (k a multiple of 16, n of kQIntRows): per block
// of four outputs, the sums of as many tokens as `scratch` holds in one call, then each
// token's four requantized by the block's record, taken apart once.
void qgemm_rows_tokens(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x, size_t rows, int8_t* y,
                       uint32_t* scratch) {
  static constexpr int32_t kNoBias[kQIntRows] = {};
  int32_t* const sums = reinterpret_cast<int32_t*>(scratch);
  const size_t n = p.n, k = p.k, w_stride = p.w_stride;
  const size_t chunk = qgemm_scratch_bytes(k) / (kQIntRows * sizeof(int32_t));  // k / 2 tokens
  const int8_t* const w = p.w;
  const int32_t *const bias = p.bias, *const multiplier = p.multiplier, *const shift = p.shift;
  const int32x4_t zero_point = vdupq_n_s32(p.output_zero_point);
  const int32x4_t lo = vdupq_n_s32(p.output_min), hi = vdupq_n_s32(p.output_max);
  for (size_t j0 = 0; j0 < n; j0 += kQIntRows) {
    const Requantizer4 r = make_requantizer4(multiplier + j0, shift + j0, vctp32q(kQIntRows));
    for (size_t t0 = 0; t0 < rows; t0 += chunk) {
      const size_t tokens = rows - t0 < chunk ? rows - t0 : chunk;
      kernels.rows_tokens(x + t0 * k, tokens, w + j0 * w_stride, w_stride, k, bias != nullptr ? bias + j0 : kNoBias,
                          sums);
      int8_t* out = y + t0 * n + j0;
      for (size_t t = 0; t < tokens; ++t, out += n) {
        const int32x4_t v = vaddq_s32(requantize4(vldrwq_s32(sums + kQIntRows * t), r), zero_point);
        vstrbq_s32(out, vminq_s32(vmaxq_s32(v, lo), hi));  // the low byte of each lane
      }
    }
  }
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
  const size_t steps = (k + 3) / 4;
  for (size_t t = 0; t < kQIntTokens; ++t) {
    uint32_t* out = packed + 2 * t;  // token t's two words of each step, 8 words apart
    if (t >= rows) {
      for (size_t s = 0; s < steps; ++s, out += 8) out[0] = out[1] = 0;
      continue;
    }
    const int8_t* row = x + t * k;
    size_t i = 0;
#if defined(FOCAL_QGEMM_SXTB16)
    for (; i + 4 <= k; i += 4, out += 8) {  // SXTB16 makes the pairing: bytes 0 and 2, 1 and 3
      uint32_t word;
      std::memcpy(&word, row + i, sizeof(word));
      out[0] = uint32_t(__sxtb16(word));
      out[1] = uint32_t(__sxtb16(word >> 8 | word << 24));  // rotated by 8
    }
#endif
    const auto half = [row, k](size_t e) { return uint32_t(uint16_t(e < k ? row[e] : 0)); };
    for (; i < k; i += 4, out += 8) {
      out[0] = half(i) | half(i + 2) << 16;
      out[1] = half(i + 1) | half(i + 3) << 16;
    }
  }
}

namespace {

// v clamped to [-128, 127]: one SSAT where the core saturates (v7-M, v7-A).
FOCAL_QINT_INLINE int32_t saturate_int8(int32_t v) {
#if defined(__ARM_FEATURE_SAT)
  return __ssat(v, 8);
#else
  return qint::clamp(v, -128, 127);
#endif
}

// The clamp of an output row: int8's own range (one SSAT), or a raised floor (a fused
// ReLU) or lowered ceiling too.
struct Int8Range {
  int32_t lo, hi;
};
struct FullInt8Range {};
FOCAL_QINT_INLINE int32_t clamp_output(int32_t v, FullInt8Range) { return saturate_int8(v); }
FOCAL_QINT_INLINE int32_t clamp_output(int32_t v, Int8Range range) { return qint::clamp(v, range.lo, range.hi); }

// The rows t0 .. t0 + group - 1 of y = W x (qgemm_s8) from their packed form: per
// output j, one dot_tokens call and the four sums requantized by j's multiplier and shift,
// taken apart once. Four rows (the usual group) are written out unrolled, so the sums and
// the record stay in registers at -Os.
template <class Range>
void qgemm_group(const QGemvParams& p, QIntDotTokensFn dot, const uint32_t* packed, size_t group, Range range,
                 int8_t* out) {
  const size_t n = p.n, k = p.k, w_stride = p.w_stride;
  const int8_t* const w = p.w;
  const int32_t *const bias = p.bias, *const multiplier = p.multiplier, *const shift = p.shift;
  const int32_t zero_point = p.output_zero_point;
  for (size_t j = 0; j < n; ++j) {
    const int32_t b = bias != nullptr ? bias[j] : 0;
    int32_t sums[kQIntTokens] = {b, b, b, b};
    dot(packed, w + j * w_stride, k, sums);
    const qint::Requantizer r = qint::make_requantizer(multiplier[j], shift[j]);
    int8_t* y = out + j;
    if (group == kQIntTokens) {
      const int32_t s0 = sums[0], s1 = sums[1], s2 = sums[2], s3 = sums[3];
      y[0] = int8_t(clamp_output(qint::requantize(s0, r) + zero_point, range));
      y[n] = int8_t(clamp_output(qint::requantize(s1, r) + zero_point, range));
      y[2 * n] = int8_t(clamp_output(qint::requantize(s2, r) + zero_point, range));
      y[3 * n] = int8_t(clamp_output(qint::requantize(s3, r) + zero_point, range));
      continue;
    }
    for (size_t t = 0; t < group; ++t) y[t * n] = int8_t(clamp_output(qint::requantize(sums[t], r) + zero_point, range));
  }
}

}  // namespace

void qgemm_s8(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x, size_t rows, int8_t* y,
              uint32_t* scratch) {
#if defined(FOCAL_QGEMV_MVE)
  if (kernels.rows_tokens != nullptr && p.k != 0 && p.k % 16 == 0 && p.n % kQIntRows == 0) {
    qgemm_rows_tokens(kernels, p, x, rows, y, scratch);
    return;
  }
#endif
  if (kernels.dot_tokens == nullptr) {
    for (size_t t = 0; t < rows; ++t) qgemv_s8(kernels, p, x + t * p.k, y + t * p.n);
    return;
  }
  const bool full_range = p.output_min == -128 && p.output_max == 127;
  for (size_t t0 = 0; t0 < rows; t0 += kQIntTokens) {
    const size_t group = rows - t0 < kQIntTokens ? rows - t0 : kQIntTokens;
    qint_pack_tokens(x + t0 * p.k, group, p.k, scratch);
    if (full_range) {
      qgemm_group(p, kernels.dot_tokens, scratch, group, FullInt8Range{}, y + t0 * p.n);
    } else {
      qgemm_group(p, kernels.dot_tokens, scratch, group, Int8Range{p.output_min, p.output_max}, y + t0 * p.n);
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
