// Add on int8 activations (schema AddOptions, AddQuantization; kernels/qint, qadd_s8):
// TFLite's int8 ADD of two tensors of the same shape, each with its own scale and zero
// point, into a third.
#include "ops/int8_operands.h"
#include "qint/fixed_point.h"

namespace focal {
namespace {

constexpr int32_t kMaxLeftShift = 20;

// Every shift at most 0 (each multiplier at most 1): with |a - z_a| <= 255 shifted left by
// at most 20 (< 2^28), the two requantized inputs and their sum stay below 2^29 and the
// output's requantization below that, so no int32 step overflows.
Status check_multiplier(const OpCheck& c, int32_t multiplier, int32_t shift, const char* what) {
  FOCAL_RETURN_IF_ERROR(expect_multiplier(c, multiplier, shift, what));
  if (shift > 0) return c.fail("%s shift %ld: an int8 add's multipliers are at most 1 (shift <= 0)", what, static_cast<long>(shift));
  return Status();
}

Status check_add_int8(const OpCheck& c) {
  for (int i = 0; i < 2; ++i) FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, c.input(i)));
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.input(1)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.output(0)));
  const fb::AddQuantization* q = c.op.options_as_AddOptions()->quantized();
  if (q == nullptr) return c.fail("an int8 add needs its quantization");
  if (q->left_shift() < 0 || q->left_shift() > kMaxLeftShift) {
    return c.fail("int8 add left_shift %ld outside [0, %d]", static_cast<long>(q->left_shift()),
                  static_cast<int>(kMaxLeftShift));
  }
  FOCAL_RETURN_IF_ERROR(check_multiplier(c, q->a_multiplier(), q->a_shift(), "add input a"));
  FOCAL_RETURN_IF_ERROR(check_multiplier(c, q->b_multiplier(), q->b_shift(), "add input b"));
  return check_multiplier(c, q->output_multiplier(), q->output_shift(), "add output");
}

Status run_add_int8(const OpRun& r) {
  const fb::AddQuantization& q = *r.options<fb::AddOptions>().quantized();
  kernels::QAddParams p;
  p.left_shift = q.left_shift();
  p.a_zero_point = activation_quant(*r.inputs[0].tensor).zero_point;
  p.a_multiplier = q.a_multiplier(), p.a_shift = q.a_shift();
  p.b_zero_point = activation_quant(*r.inputs[1].tensor).zero_point;
  p.b_multiplier = q.b_multiplier(), p.b_shift = q.b_shift();
  p.output_zero_point = activation_quant(*r.outputs[0].tensor).zero_point;
  p.output_multiplier = q.output_multiplier(), p.output_shift = q.output_shift();
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
