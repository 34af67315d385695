// Clip op: y = min(max(x, min), max) elementwise, PyTorch's torch.clamp and ONNX's Clip
// (ReLU6 is min 0, max 6; hardtanh min -1, max 1). inputs: x f32, of any rank; the output
// has its shape. A NaN in x stays NaN, as torch.clamp keeps it: the bounds are applied by
// comparisons, which a NaN fails, not by fmin/fmax, which would return the bound.
//
// A plain loop rather than a kernel family, as Scale: two comparisons per element, bound
// by memory; compilers vectorize it for the build's baseline instruction set, and a
// firmware that does not select the op links none of it.
#include <cmath>

#include "ops/op_checks.h"

namespace focal {
namespace {

// The options are checked here only (the converter's spec layer leaves them to this
// check, which it runs on every model it writes): an open side is -inf or +inf, the
// schema's defaults; min > max has no meaning torch.clamp and ONNX agree on.
Status check_clip(const OpCheck& c) {
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.input(0)));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.output(0)));
  const fb::ClipOptions& options = *c.op.options_as_ClipOptions();
  const float low = options.min(), high = options.max();
  if (std::isnan(low) || std::isnan(high) || low > high) {
    return c.fail("min must be at most max and neither NaN (an open side is -inf or inf), found min %g and max %g",
                  static_cast<double>(low), static_cast<double>(high));
  }
  return Status();
}

// y may alias x: each element is read before it is written.
Status run_clip(const OpRun& r) {
  const fb::ClipOptions& options = r.options<fb::ClipOptions>();
  const float low = options.min(), high = options.max();
  const size_t count = static_cast<size_t>(r.outputs[0].shape.element_count());
  const float* x = r.inputs[0].f32();
  float* y = r.outputs[0].mutable_f32();
  for (size_t i = 0; i < count; ++i) {
    const float v = x[i];
    y[i] = v < low ? low : (v > high ? high : v);  // a NaN fails both and stays
  }
  return Status();
}

}  // namespace

const OpDef& clip_op_def() {
  static const OpDef def = {"Clip", 1, 1, 1, check_clip, run_clip, nullptr};
  return def;
}

}  // namespace focal
