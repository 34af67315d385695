// Softmax over the last axis of [rows, width] f32 data, as a kernel table per
// instruction set (its kernel set, dispatch/kernel_set_instance.cpp, written once in softmax_simd.hpp) and the scalar
// reference twin (reference.cpp). Rows are dense; y may alias x. Kernels trust their
// arguments and never allocate.
#pragma once

#include <cstddef>

namespace focal {
namespace kernels {

// y[r, i] = exp(x[r, i] - max_r) / sum_j exp(x[r, j] - max_r). y may alias x.
// -inf inputs give exactly 0; a row of all -inf gives all zeros (no valid entry).
// Inputs are finite or -inf (+inf or NaN give NaN rows in the reference and undefined
// values in the kernels).
void softmax_f32_reference(size_t rows, size_t width, const float* x, float* y);

// The kernels compute exp as the attention kernel's softmax-grade exp2 (within 2 ulp)
// of (x - max) * log2(e): the difference first, exact near the max, then the scaling.
using SoftmaxFn = void (*)(size_t rows, size_t width, const float* x, float* y);

struct SoftmaxKernelTable {
  const char* isa;
  SoftmaxFn softmax;
};

}  // namespace kernels
}  // namespace focal
