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
// A Dense weight [out, in] in the GEMM panel layout (any packed dtype).
Status expect_packed_weight(const OpCheck& c, const fb::Tensor& t, int64_t out, int64_t in);
// Input slot `slot`, if present, is a bias vector of `length`.
Status expect_optional_vector(const OpCheck& c, int slot, int64_t length);
// A normalization over the last axis: x f32 with a fixed last axis, the output shaped
// like x, inputs 1..params the per-feature vectors, a positive finite epsilon.
Status check_last_axis_norm(const OpCheck& c, int params, float epsilon);
// The [rows, width] view of a run's tensor for such a normalization (width: its last dim).
kernels::LayerNormParams last_axis_rows(const Shape& shape, float epsilon);

// y[m, n] (rows y_stride apart, 0: n) = act(x[m, k] . W^T + b) on packed weights
// `w` (checked at load), bias optional.
void packed_dense(const fb::Tensor& w, const void* w_data, const float* x, size_t m,
                  const float* bias, float* y, size_t y_stride, ParallelFor* parallel,
                  fb::Activation activation = fb::Activation_None);

}  // namespace focal
