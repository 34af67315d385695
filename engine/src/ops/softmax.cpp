// Softmax op over the last axis.
#include "dispatch/pointwise_dispatch.h"

#include "ops/op_checks.h"

namespace focal {
namespace {

Status check_softmax(const OpCheck& c) {
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.input(0)));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.output(0)));
  return expect_same_shape(c, c.input(0), c.output(0));
}

Status run_softmax(const OpRun& r) {
  const Shape& shape = r.inputs[0].shape;
  const size_t width = static_cast<size_t>(shape.dims[shape.rank - 1]);
  const size_t rows = static_cast<size_t>(shape.element_count()) / width;
  softmax(rows, width, r.inputs[0].f32(), r.outputs[0].mutable_f32(), r.kernels);
  return Status();
}

}  // namespace

const OpDef& softmax_op_def() {
  static const OpDef def = {"Softmax", 1, 1, 1, check_softmax, run_softmax, nullptr};
  return def;
}

}  // namespace focal
