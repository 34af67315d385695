// Softmax over the last axis of [rows, width] f32 data.
#pragma once

#include <cstddef>

namespace focal {
namespace kernels {

// y[r, i] = exp(x[r, i] - max_r) / sum_j exp(x[r, j] - max_r). y may alias x.
// -inf inputs give exactly 0; a row of all -inf gives all zeros (no valid entry).
void softmax_f32_reference(size_t rows, size_t width, const float* x, float* y);

}  // namespace kernels
}  // namespace focal
