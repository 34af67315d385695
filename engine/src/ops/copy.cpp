// Copy op: y = x byte for byte (same dtype and shape), e.g. an input kept as a state.
#include <cstring>

#include "focal/internal/graph.h"
#include "ops/op_checks.h"

namespace focal {
namespace {

Status check_copy(const OpCheck& c) {
  if (c.input(0).dtype() != c.output(0).dtype()) return c.fail("input and output dtypes differ");
  return expect_same_shape(c, c.input(0), c.output(0));
}

Status run_copy(const OpRun& r) {
  const fb::Tensor& x = *r.inputs[0].tensor;
  const size_t bytes = static_cast<size_t>(r.inputs[0].shape.element_count()) *
                       dtype_size(to_dtype(x.dtype()));
  std::memmove(r.outputs[0].data, r.inputs[0].data, bytes);
  return Status();
}

}  // namespace

const OpDef& copy_op_def() {
  static const OpDef def = {"Copy", 1, 1, 1, check_copy, run_copy, nullptr};
  return def;
}

}  // namespace focal
