// Small load-time checks shared by the op families.
#pragma once

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

}  // namespace focal
