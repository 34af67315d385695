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

// x / 2^exponent rounded to nearest, ties away from zero, in 64 bits; exponent in [1, 62].
int64_t rounding_shift_right(int64_t x, int32_t exponent) {
  const int64_t half = int64_t(1) << (exponent - 1);
  return x >= 0 ? (x + half) >> exponent : -((-x + half) >> exponent);
}

// 1 / sqrt(v) for 1 <= v < 2^62 as m 2^(p - 61): m in [2^30, 2^31], p >= 0.
struct InverseRoot {
  int64_t m;
  int32_t p;
};

InverseRoot inverse_root(uint64_t v) {
  int32_t top = 63;  // index of v's highest set bit
  while (((v >> top) & 1) == 0) --top;
  // v << 2p in [2^60, 2^62): its square root r = sqrt(v) 2^p in [2^30, 2^31).
  const int32_t p = (top % 2 == 0 ? 60 - top : 61 - top) / 2;
  const int64_t r = int64_t(isqrt64(v << (2 * p)));
  return InverseRoot{((int64_t(1) << 61) + r / 2) / r, p};
}

}  // namespace

void qlayer_norm_s8(const QLayerNormParams& p, const int8_t* x, int8_t* y) {
  const int64_t n = int64_t(p.width);
  int64_t sum = 0, squares = 0;
  for (size_t i = 0; i < p.width; ++i) {
    const int64_t e = int64_t(x[i]) - p.x_zero_point;
    sum += e;
    squares += e * e;
  }
  // V <= n^2 255^2 / 4 < 2^46 for n <= 2^16; epsilon_q is held below 2^46 by the loader.
  const uint64_t variance = uint64_t(n * squares - sum * sum) + uint64_t(p.epsilon_q);
  const InverseRoot inv = variance > 0 ? inverse_root(variance) : InverseRoot{0, 0};
  for (size_t i = 0; i < p.width; ++i) {
    const int64_t d = n * (int64_t(x[i]) - p.x_zero_point) - sum;  // |d| < 2^25
    // u = d m 2^(p - 61) in Q11.20: |d m| < 2^56, and the shift 41 - p is at least 10.
    const int32_t u = variance > 0 ? int32_t(rounding_shift_right(d * inv.m, 41 - inv.p)) : 0;
    const int32_t q = qint::requantize(u, p.multiplier[i], p.shift[i]) + p.bias[i];
    y[i] = int8_t(qint::clamp(q + p.output_zero_point, -128, 127));
  }
}

}  // namespace kernels
}  // namespace focal
