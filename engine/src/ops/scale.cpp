// Scale op: y = x * scale + shift with constant scale and shift (a temperature, a logit
// scale, 1/sqrt(d) outside attention). inputs: x, of any rank.
//
// A plain loop rather than a kernel family: the op is one multiply-add per element,
// bound by memory, and runs on small tensors (a pooled embedding, a row of logits);
// compilers vectorize the loop for the build's baseline instruction set, and a firmware
// that does not select the op links none of it.
#include <cmath>

#include "ops/op_checks.h"

namespace focal {
namespace {

Status check_scale(const OpCheck& c) {
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.input(0)));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.output(0)));
  const fb::ScaleOptions& options = *c.op.options_as_ScaleOptions();
  if (!std::isfinite(options.scale()) || !std::isfinite(options.shift())) {
    return c.fail("scale and shift must be finite, found %g and %g", static_cast<double>(options.scale()),
                  static_cast<double>(options.shift()));
  }
  return Status();
}

// y may alias x: each element is read before it is written.
Status run_scale(const OpRun& r) {
  const fb::ScaleOptions& options = *r.op.options_as_ScaleOptions();
  const float scale = options.scale(), shift = options.shift();
  const size_t count = static_cast<size_t>(r.outputs[0].shape.element_count());
  const float* x = r.inputs[0].f32();
  float* y = r.outputs[0].mutable_f32();
  for (size_t i = 0; i < count; ++i) y[i] = x[i] * scale + shift;
  return Status();
}

}  // namespace

const OpDef& scale_op_def() {
  static const OpDef def = {"Scale", 1, 1, 1, check_scale, run_scale, nullptr};
  return def;
}

}  // namespace focal
