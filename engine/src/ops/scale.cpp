// Scale op: y = x * scale + shift with constant scale and shift (a temperature, a logit
// scale, 1/sqrt(d) outside attention). inputs: x, of any rank; f32, or i32 with whole
// scale and shift (a PyTorch key padding mask, 1 = pad, turned to 1 = token by -1, +1).
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
  const bool ints = c.input(0).dtype() == fb::DType_I32;
  FOCAL_RETURN_IF_ERROR(ints ? expect_i32(c, c.input(0)) : expect_f32(c, c.input(0)));
  FOCAL_RETURN_IF_ERROR(ints ? expect_i32(c, c.output(0)) : expect_f32(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.output(0)));
  const fb::ScaleOptions& options = *c.op.options_as_ScaleOptions();
  if (!std::isfinite(options.scale()) || !std::isfinite(options.shift())) {
    return c.fail("scale and shift must be finite, found %g and %g", static_cast<double>(options.scale()),
                  static_cast<double>(options.shift()));
  }
  if (ints && (std::fabs(options.scale()) > 1024.0f || std::fabs(options.shift()) > 1024.0f ||
               options.scale() != std::trunc(options.scale()) || options.shift() != std::trunc(options.shift()))) {
    return c.fail("an i32 scale takes whole scale and shift within 1024, found %g and %g",
                  static_cast<double>(options.scale()), static_cast<double>(options.shift()));
  }
  return Status();
}

// y may alias x: each element is read before it is written.
Status run_scale(const OpRun& r) {
  const fb::ScaleOptions& options = r.options<fb::ScaleOptions>();
  const float scale = options.scale(), shift = options.shift();
  const size_t count = static_cast<size_t>(r.outputs[0].shape.element_count());
  if (r.inputs[0].tensor->dtype() == fb::DType_I32) {
    const auto scale_i = static_cast<int32_t>(scale), shift_i = static_cast<int32_t>(shift);  // whole, checked
    const int32_t* xi = r.inputs[0].i32();
    int32_t* yi = static_cast<int32_t*>(r.outputs[0].data);
    for (size_t i = 0; i < count; ++i) {
      const int64_t scaled = static_cast<int64_t>(xi[i]) * scale_i + shift_i;  // 64-bit: no overflow on the way
      yi[i] = static_cast<int32_t>(scaled);
    }
    return Status();
  }
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
