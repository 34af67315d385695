#include <cmath>

#include "position/position_kernels.h"

namespace focal {
namespace kernels {

void rope_reference(const RopeParams& p) {
  const size_t rotary = rope_rotary_dim(p), half = rotary / 2;
  const RopeStrides st = rope_strides(p);
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t s = 0; s < p.seq; ++s) {
      const float position = rope_position(p, b, s);
      for (size_t h = 0; h < p.heads; ++h) {
        const size_t offset = b * st.batch + s * st.seq + h * st.head;
        const float* x = p.x + offset;
        float* y = p.y + offset;
        for (size_t k = 0; k < half; ++k) {
          const float angle = position * rope_pair_frequency(p, k, rotary);
          const float c = std::cos(angle), sn = std::sin(angle);
          const size_t i = p.layout == RopeLayout::kHalfSplit ? k : 2 * k;
          const size_t j = p.layout == RopeLayout::kHalfSplit ? k + half : 2 * k + 1;
          const float xi = x[i], xj = x[j];
          y[i] = xi * c - xj * sn;
          y[j] = xj * c + xi * sn;
        }
        if (y != x) {
          for (size_t i = rotary; i < p.head_dim; ++i) y[i] = x[i];
        }
      }
    }
  }
}

void sinusoid_reference(const SinusoidParams& p) {
  const size_t half = p.dim / 2;
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t r = 0; r < p.positions; ++r) {
      float* out = p.out + (b * p.positions + r) * p.dim;
      const float position = sinusoid_position(p, r);
      for (size_t i = 0; i < half; ++i) {
        const float angle = position * sinusoid_inv_timescale(p, i);
        const float sn = std::sin(angle), c = std::cos(angle);
        const size_t si = p.layout == SinusoidLayout::kInterleaved ? 2 * i : i;
        const size_t ci = p.layout == SinusoidLayout::kInterleaved ? 2 * i + 1 : half + i;
        out[si] = p.accumulate ? out[si] + sn : sn;
        out[ci] = p.accumulate ? out[ci] + c : c;
      }
      if (p.dim % 2 != 0 && !p.accumulate) out[p.dim - 1] = 0.0f;
    }
  }
}

}  // namespace kernels
}  // namespace focal
