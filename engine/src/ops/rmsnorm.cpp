// RmsNorm op over the last axis: inputs x, gamma [d] (Llama, T5).
#include <cmath>

#include "normalization/normalization.h"
#include "ops/op_checks.h"
#include "pointwise_dispatch.h"

namespace focal {
namespace {

Status check_rmsnorm(const OpCheck& c) {
  const fb::Tensor& x = c.input(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, x, c.output(0)));
  if (dim_symbol(x, -1) != -1) return c.fail("the normalized axis must have a fixed size");
  FOCAL_RETURN_IF_ERROR(expect_vector(c, c.input(1), dim(x, -1)));
  const float epsilon = c.op.options_as_RmsNormOptions()->epsilon();
  if (!(epsilon > 0.0f) || !std::isfinite(epsilon)) {
    return c.fail("epsilon must be positive and finite, found %g", static_cast<double>(epsilon));
  }
  return Status();
}

Status run_rmsnorm(const OpRun& r) {
  const Shape& shape = r.inputs[0].shape;
  kernels::LayerNormParams params;
  params.width = static_cast<size_t>(shape.dims[shape.rank - 1]);
  params.rows = static_cast<size_t>(shape.element_count()) / params.width;
  params.epsilon = r.op.options_as_RmsNormOptions()->epsilon();
  rmsnorm(params, r.inputs[0].f32(), r.inputs[1].f32(), r.outputs[0].mutable_f32());
  return Status();
}

}  // namespace

const OpDef& rmsnorm_op_def() {
  static const OpDef def = {"RmsNorm", 2, 2, 1, check_rmsnorm, run_rmsnorm, nullptr};
  return def;
}

}  // namespace focal
