// Scale on an int8 activation (schema ScaleOptions): y = (s_x (x - z_x)) * scale + shift
// in f32, the dequantization where a model on int8 activations gives an f32 output (an
// encoder's last_hidden_state) or hands over to an f32 op. One rounded product, then one
// fused multiply-add (std::fma, exactly rounded on every core, where a compiler would
// contract `a * b + c` on some cores and not others), so every core gives the same bits.
#include <cmath>

#include "ops/int8_operands.h"

namespace focal {
namespace {

Status check_scale_int8(const OpCheck& c) {
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, c.input(0)));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.output(0)));
  const fb::ScaleOptions& options = *c.op.options_as_ScaleOptions();
  if (!std::isfinite(options.scale()) || !std::isfinite(options.shift())) {
    return c.fail("scale and shift must be finite, found %g and %g", static_cast<double>(options.scale()),
                  static_cast<double>(options.shift()));
  }
  return Status();
}

Status run_scale_int8(const OpRun& r) {
  const fb::ScaleOptions& options = r.options<fb::ScaleOptions>();
  const ActivationQuant q = activation_quant(*r.inputs[0].tensor);
  const size_t count = static_cast<size_t>(r.outputs[0].shape.element_count());
  const auto* x = static_cast<const int8_t*>(r.inputs[0].data);
  float* y = r.outputs[0].mutable_f32();
  for (size_t i = 0; i < count; ++i) {
    const float real = q.scale * static_cast<float>(int32_t(x[i]) - q.zero_point);
    y[i] = std::fma(real, options.scale(), options.shift());
  }
  return Status();
}

}  // namespace

const OpDef& scale_int8_op_def() {
  static const OpDef def = {"Scale", 1, 1, 1, check_scale_int8, run_scale_int8, nullptr};
  return def;
}

}  // namespace focal
