// Add op: y = a + b, elementwise over equal shapes (residual connections).
#include "dispatch/pointwise_dispatch.h"
#include "ops/op_checks.h"

namespace focal {
namespace {

Status check_add(const OpCheck& c) {
  for (int i = 0; i < 2; ++i) FOCAL_RETURN_IF_ERROR(expect_f32(c, c.input(i)));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.output(0)));
  FOCAL_RETURN_IF_ERROR(expect_same_shape(c, c.input(0), c.input(1)));
  return expect_same_shape(c, c.input(0), c.output(0));
}

Status run_add(const OpRun& r) {
  const size_t count = static_cast<size_t>(r.outputs[0].shape.element_count());
  residual_add(count, r.inputs[0].f32(), r.inputs[1].f32(), r.outputs[0].mutable_f32(), r.kernels);
  return Status();
}

}  // namespace

const OpDef& add_op_def() {
  static const OpDef def = {"Add", 2, 2, 1, check_add, run_add, nullptr};
  return def;
}

}  // namespace focal
