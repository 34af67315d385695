#include <cstring>

#include "pooling/pooling_kernels.h"

namespace focal {
namespace kernels {

void mean_pool_reference(const PoolParams& p) {
  for (size_t b = 0; b < p.batch; ++b) {
    const size_t length = p.lengths != nullptr ? static_cast<size_t>(p.lengths[b]) : p.seq;
    const float* x = p.x + b * p.seq * p.dim;
    float* out = p.out + b * p.dim;
    for (size_t i = 0; i < p.dim; ++i) {
      float sum = 0.0f;
      for (size_t s = 0; s < length; ++s) sum += x[s * p.dim + i];
      out[i] = length != 0 ? sum / static_cast<float>(length) : 0.0f;
    }
  }
}

void cls_pool_reference(const PoolParams& p) {
  for (size_t b = 0; b < p.batch; ++b) {
    std::memcpy(p.out + b * p.dim, p.x + b * p.seq * p.dim, p.dim * sizeof(float));
  }
}

}  // namespace kernels
}  // namespace focal
