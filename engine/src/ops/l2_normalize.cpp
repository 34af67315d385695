// L2Normalize op over the last axis: y = x / max(||x||_2, epsilon) (a sentence
// encoder's unit-length embedding). inputs: x, of any rank.
#include "dispatch/pointwise_dispatch.h"
#include "normalization/normalization_kernels.h"
#include "ops/op_checks.h"

namespace focal {
namespace {

Status check_l2_normalize(const OpCheck& c) {
  return check_last_axis_norm(c, 0, c.op.options_as_L2NormalizeOptions()->epsilon());
}

Status run_l2_normalize(const OpRun& r) {
  const kernels::LayerNormParams params =
      last_axis_rows(r.inputs[0].shape, r.options<fb::L2NormalizeOptions>().epsilon());
  l2_normalize(params, r.inputs[0].f32(), r.outputs[0].mutable_f32(), r.kernels);
  return Status();
}

}  // namespace

const OpDef& l2_normalize_op_def() {
  static const OpDef def = {"L2Normalize", 1, 1, 1, check_l2_normalize, run_l2_normalize, nullptr};
  return def;
}

}  // namespace focal
