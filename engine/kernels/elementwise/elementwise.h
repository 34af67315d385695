// Elementwise arithmetic over contiguous f32 arrays of `count` elements.
#pragma once

#include <cstddef>

namespace focal {
namespace kernels {

// y = a + b. y may alias a or b.
void add_f32_reference(size_t count, const float* a, const float* b, float* y);

}  // namespace kernels
}  // namespace focal
