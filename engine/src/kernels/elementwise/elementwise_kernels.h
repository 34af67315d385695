// Elementwise f32 kernels: the residual add and the gated activations of gated
// feed-forward layers (SwiGLU, GeGLU), as a kernel table per instruction set
// (its kernel set, dispatch/kernel_set_instance.cpp, written once in elementwise_simd.hpp) and the scalar
// reference twins (reference.cpp). Kernels trust their arguments and never allocate.
#pragma once

#include <cstddef>

namespace focal {
namespace kernels {

// y = a + b over `count` contiguous elements. y may alias a or b.
void add_f32_reference(size_t count, const float* a, const float* b, float* y);

// Gating: y[r, i] = act(a[r, i]) * b[r, i] for r < rows, i < width, rows addressed with a
// stride in floats (0: dense rows of width). Two layouts, one kernel:
//  - two inputs (two GEMMs, e.g. Llama's gate_proj and up_proj): a and b are separate
//    [rows, width] buffers;
//  - split halves (one fused GEMM of 2 * width outputs): a = h, b = h + width and
//    a_stride = b_stride = 2 * width for the "act(first half) * second half" order
//    (Phi-3, a fused Llama gate_up); for "first half * act(second half)" (diffusers'
//    GEGLU: hidden, gate = proj(x).chunk(2); hidden * gelu(gate)) pass a = h + width, b = h.
// y may alias a or b exactly (same pointer and stride), e.g. y = h writes the result
// over the first half.
struct GatedParams {
  size_t rows;
  size_t width;
  size_t a_stride, b_stride, y_stride;  // floats between rows; 0: width
};

enum class GeluForm {
  kErf,   // 0.5 x (1 + erf(x / sqrt 2)): PyTorch's F.gelu default, BERT
  kTanh,  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))): GPT-2's gelu_new, T5 v1.1
};

// SwiGLU: act = silu(a) = a * sigmoid(a) = a / (1 + e^-a).
void swiglu_f32_reference(const GatedParams& p, const float* a, const float* b, float* y);
// GeGLU: act = gelu(a) in the given form.
void geglu_f32_reference(const GatedParams& p, GeluForm form, const float* a, const float* b,
                         float* y);

// In an unnamed namespace, as every helper shared with the per-ISA translation units.
namespace {
inline size_t gated_stride(size_t stride, size_t width) { return stride != 0 ? stride : width; }
}  // namespace

using AddFn = void (*)(size_t count, const float* a, const float* b, float* y);
using GatedFn = void (*)(const GatedParams& p, const float* a, const float* b, float* y);

struct ElementwiseKernelTable {
  const char* isa;
  AddFn add;
  GatedFn swiglu;
  GatedFn geglu_erf;
  GatedFn geglu_tanh;
};

}  // namespace kernels
}  // namespace focal
