#include "elementwise/elementwise.h"

namespace focal {
namespace kernels {

void add_f32_reference(size_t count, const float* a, const float* b, float* y) {
  for (size_t i = 0; i < count; ++i) y[i] = a[i] + b[i];
}

}  // namespace kernels
}  // namespace focal
