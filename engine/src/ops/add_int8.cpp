// Add on int8 activations (schema AddOptions, AddQuantization; kernels/qint, qadd_s8):
// two tensors of the same shape, each with its own scale and zero point, into a third,
// rounded once.
#include "ops/int8_operands.h"

namespace focal {
namespace {

Status check_add_int8(const OpCheck& c) {
  for (int i = 0; i < 2; ++i) FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, c.input(i)));
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.input(1)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.output(0)));
  const fb::AddQuantization* q = c.op.options_as_AddOptions()->quantized();
  if (q == nullptr) return c.fail("an int8 add needs its quantization");
  // |a - z_a|, |b - z_b| <= 255: with both multipliers at most 2^21 the sum and its
  // rounding term (at most 2^30) stay within int32.
  for (int32_t m : {q->a_multiplier(), q->b_multiplier()}) {
    if (m < 0 || m > kernels::kQAddMaxMultiplier) {
      return c.fail("int8 add multiplier %ld outside [0, 2^21]", static_cast<long>(m));
    }
  }
  if (q->shift() < 1 || q->shift() > 31) return c.fail("int8 add shift %ld outside [1, 31]", static_cast<long>(q->shift()));
  return Status();
}

Status run_add_int8(const OpRun& r) {
  const fb::AddQuantization& q = *r.options<fb::AddOptions>().quantized();
  kernels::QAddParams p;
  p.a_zero_point = activation_quant(*r.inputs[0].tensor).zero_point;
  p.a_multiplier = q.a_multiplier();
  p.b_zero_point = activation_quant(*r.inputs[1].tensor).zero_point;
  p.b_multiplier = q.b_multiplier();
  p.shift = q.shift();
  p.output_zero_point = activation_quant(*r.outputs[0].tensor).zero_point;
  kernels::qadd_s8(p, static_cast<const int8_t*>(r.inputs[0].data), static_cast<const int8_t*>(r.inputs[1].data),
                   static_cast<size_t>(r.outputs[0].shape.element_count()), static_cast<int8_t*>(r.outputs[0].data));
  return Status();
}

}  // namespace

const OpDef& add_int8_op_def() {
  static const OpDef def = {"Add", 2, 2, 1, check_add_int8, run_add_int8, nullptr};
  return def;
}

}  // namespace focal
