// Small load-time checks shared by the op families.
#pragma once

#include "normalization/normalization_kernels.h"
#include "ops/op.h"

namespace focal {

// -1 for a fixed dim, else the index of the symbol the dim follows. Axes < 0 count
// from the end, here and in dim().
int dim_symbol(const fb::Tensor& tensor, int axis);
int rank(const fb::Tensor& tensor);
int64_t dim(const fb::Tensor& tensor, int axis);  // axis < 0 counts from the end

// Same planned size and same symbol: equal at every actual run shape too.
bool same_dim(const fb::Tensor& a, int a_axis, const fb::Tensor& b, int b_axis);

Status expect_f32(const OpCheck& c, const fb::Tensor& t);
Status expect_constant(const OpCheck& c, const fb::Tensor& t);
Status expect_rank(const OpCheck& c, const fb::Tensor& t, int min_rank, int max_rank);
// Equal rank and every dim the same (values and symbols).
Status expect_same_shape(const OpCheck& c, const fb::Tensor& a, const fb::Tensor& b);
// A 1-D constant f32 vector of `length` elements (biases, norm weights).
Status expect_vector(const OpCheck& c, const fb::Tensor& t, int64_t length);
Status expect_i32(const OpCheck& c, const fb::Tensor& t);
// A Dense weight [out, in] in a GEMM layout: the panel layout (any packed dtype) or the
// int8-dot one (i8, run with int8 activations).
Status expect_packed_weight(const OpCheck& c, const fb::Tensor& t, int64_t out, int64_t in);
bool is_packed_weight(const fb::Tensor& t);
// Input slot `slot`, if present, is a bias vector of `length`.
Status expect_optional_vector(const OpCheck& c, int slot, int64_t length);
// A normalization over the last axis: x f32 with a fixed last axis, the output shaped
// like x, inputs 1..params the per-feature vectors, a positive finite epsilon.
Status check_last_axis_norm(const OpCheck& c, int params, float epsilon);
// The [rows, width] view of a run's tensor for such a normalization (width: its last dim).
kernels::LayerNormParams last_axis_rows(const Shape& shape, float epsilon);

// Scratch of packed_dense: the int8 rows of x quantized for a DenseInt8Dot weight (none
// for other layouts). A region of the op's workspace that its workspace_bytes() reserves
// with packed_dense_workspace_bytes() at the op's planned maximum rows; it may be shared
// with scratch the op uses only before or after its dense products.
struct DenseScratch {
  void* data = nullptr;
  size_t bytes = 0;
};
// Bytes packed_dense needs for `rows` rows on weight `w`: 0 unless `w` is DenseInt8Dot.
// Saturating (rows from the file).
size_t packed_dense_workspace_bytes(const fb::Tensor& w, int64_t rows);

// y[m, n] (rows y_stride apart, 0: n) = act(x[m, k] . W^T + b) on packed weights
// `w` (checked at load), bias optional. DenseInt8Dot weights quantize each row of x to
// int8 into `scratch` (W8A8, focal/gemm.h). Fails only when `scratch` is smaller than
// packed_dense_workspace_bytes(w, m): an op that reserved too little.
Status packed_dense(const fb::Tensor& w, const void* w_data, const float* x, size_t m,
                    const float* bias, float* y, size_t y_stride, DenseScratch scratch,
                    ParallelFor* parallel, const kernels::KernelSet& kernels,
                    fb::Activation activation = fb::Activation_None);

}  // namespace focal
