// LayerNorm op over the last axis: inputs x, gamma [d], beta [d].
#include <cmath>

#include "normalization/normalization_kernels.h"
#include "dispatch/pointwise_dispatch.h"
#include "ops/op_checks.h"

namespace focal {
namespace {

Status check_layernorm(const OpCheck& c) {
  return check_last_axis_norm(c, 2, c.op.options_as_LayerNormOptions()->epsilon());
}

Status run_layernorm(const OpRun& r) {
  const kernels::LayerNormParams params =
      last_axis_rows(r.inputs[0].shape, r.options<fb::LayerNormOptions>().epsilon());
  layernorm(params, r.inputs[0].f32(), r.inputs[1].f32(), r.inputs[2].f32(),
            r.outputs[0].mutable_f32(), r.kernels);
  return Status();
}

}  // namespace

const OpDef& layernorm_op_def() {
  static const OpDef def = {"LayerNorm", 3, 3, 1, check_layernorm, run_layernorm, nullptr};
  return def;
}

}  // namespace focal
