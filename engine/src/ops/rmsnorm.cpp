// RmsNorm op over the last axis: inputs x, gamma [d] (Llama, T5).
#include <cmath>

#include "normalization/normalization_kernels.h"
#include "ops/op_checks.h"
#include "dispatch/pointwise_dispatch.h"

namespace focal {
namespace {

Status check_rmsnorm(const OpCheck& c) {
  return check_last_axis_norm(c, 1, c.op.options_as_RmsNormOptions()->epsilon());
}

Status run_rmsnorm(const OpRun& r) {
  const kernels::LayerNormParams params =
      last_axis_rows(r.inputs[0].shape, r.options<fb::RmsNormOptions>().epsilon());
  rmsnorm(params, r.inputs[0].f32(), r.inputs[1].f32(), r.outputs[0].mutable_f32(), r.kernels);
  return Status();
}

}  // namespace

const OpDef& rmsnorm_op_def() {
  static const OpDef def = {"RmsNorm", 2, 2, 1, check_rmsnorm, run_rmsnorm, nullptr};
  return def;
}

}  // namespace focal
