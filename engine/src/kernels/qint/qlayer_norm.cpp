// Integer layer normalization (qint_kernels.h), for transformer encoders on int8
// activations. TFLite's quantization specification has no layer norm and CMSIS-NN no
// kernel for it, so the formats are this file's own, chosen to keep every step exact or
// rounded once: for one row of n int8 values q (zero point z), with e_i = q_i - z,
//   S = sum e_i, d_i = n e_i - S (n times the centred value, exact in int32),
//   V = n sum e_i^2 - S^2 (n^2 times the variance, exact in int64),
// so that (x_i - mean) / sqrt(var + eps) = d_i / sqrt(V + n^2 eps / s_x^2) in real units:
// the scale s_x cancels and the converter folds eps into `epsilon_q` = round(n^2 eps /
// s_x^2). 1 / sqrt(V') is an integer square root of V' shifted to 31 significant bits and
// one 64-bit division per row, so u_i = d_i / sqrt(V') comes out in Q11.20 (|u_i| <=
// sqrt(n - 1) < 2^8 for n <= 2^16), and gamma_i / (s_y 2^20) and round(beta_i / s_y) + z_y
// requantize it per channel as any int8 output.
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {
namespace {

// floor(sqrt(v)) for v < 2^62, bit by bit (the same steps on every core).
uint64_t isqrt64(uint64_t v) {
  uint64_t root = 0;
  for (uint64_t bit = uint64_t(1) << 60; bit != 0; bit >>= 2) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
  }
  return root;
}

// 1 / sqrt(v) for 1 <= v < 2^62 as m 2^-shift: m in [2^30, 2^31), shift in [10, 41], so
// that d m (|d| < 2^25) is one 32 x 32 -> 64-bit multiply.
struct InverseRoot {
  int32_t m;
  int32_t shift;
};

InverseRoot inverse_root(uint64_t v) {
  const int32_t top = 63 - __builtin_clzll(v);  // index of v's highest set bit (v >= 1)
  // v << 2p in [2^60, 2^62): its square root r = sqrt(v) 2^p in [2^30, 2^31).
  const int32_t p = (top % 2 == 0 ? 60 - top : 61 - top) / 2;
  const int64_t r = int64_t(isqrt64(v << (2 * p)));
  // 1 / sqrt(v) = m 2^(p - 61) with m = round(2^61 / r) in [2^30, 2^31], so in Q11.20
  // u = d m 2^(p - 41): shift 41 - p (at least 10). m = 2^31 (r = 2^30) is the same number
  // as 2^30 with shift 40 - p, which keeps m within int32.
  const int64_t m = ((int64_t(1) << 61) + r / 2) / r;
  return m == (int64_t(1) << 31) ? InverseRoot{int32_t(1) << 30, 40 - p} : InverseRoot{int32_t(m), 41 - p};
}

}  // namespace

void qlayer_norm_s8(const QLayerNormParams& p, const int8_t* x, int8_t* y) {
  // The raw sums R = sum x_i and Q = sum x_i^2 (|R| <= n 128 < 2^24, Q <= n 2^14 <= 2^30
  // for n <= 2^16), from which S = R - n z and sum e_i^2 = Q - 2 z R + n z^2 (below 2^32:
  // exact in uint32's modular arithmetic); d_i = n (x_i - z) - S = n x_i - R.
  // The record's fields are read into locals: y's int8_t stores may alias them.
  const size_t width = p.width;
  const int32_t n = int32_t(width), z = p.x_zero_point;
  int32_t raw = 0;
  uint32_t raw_squares = 0;
  for (size_t i = 0; i < width; ++i) {
    raw += x[i];
    raw_squares += uint32_t(x[i] * x[i]);
  }
  const int32_t sum = raw - n * z;
  const uint32_t squares = raw_squares - 2u * uint32_t(z) * uint32_t(raw) + uint32_t(n) * uint32_t(z * z);
  // V <= n^2 255^2 / 4 < 2^46 for n <= 2^16; epsilon_q is held below 2^46 by the loader.
  const uint64_t variance = uint64_t(int64_t(n) * int64_t(squares) - int64_t(sum) * sum) + uint64_t(p.epsilon_q);
  const InverseRoot inv = variance > 0 ? inverse_root(variance) : InverseRoot{0, 10};
  // u_i = rounding_shift_right(d_i m, shift) in Q11.20: (d m + 2^(shift-1) - [d < 0]) >>
  // shift (ties away from zero, as there; d m < 0 only where d < 0, and for m = 0 both
  // give 0). |u| < 2^28 fits int32, so the 64-bit shift takes 32 bits of the sum's two
  // words: shift in [10, 41].
  const int64_t m = inv.m, half = int64_t(1) << (inv.shift - 1);
  const int32_t e = inv.shift;
  const int32_t *const multiplier = p.multiplier, *const shift = p.shift, *const bias = p.bias;
  const int32_t zero_point = p.output_zero_point;
  for (size_t i = 0; i < width; ++i) {
    const int32_t d = n * int32_t(x[i]) - raw;  // |d| < 2^25, so |d m| < 2^56
    const uint64_t t = uint64_t(d * m + half - (d < 0 ? 1 : 0));
    const uint32_t low = uint32_t(t), high = uint32_t(t >> 32);
    const int32_t u = e < 32 ? int32_t(low >> e | high << (32 - e)) : int32_t(high) >> (e - 32);
    const int32_t q = qint::requantize(u, multiplier[i], shift[i]) + bias[i];
    y[i] = int8_t(qint::clamp(q + zero_point, -128, 127));
  }
}

}  // namespace kernels
}  // namespace focal
