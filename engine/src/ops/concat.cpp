// Concat op: 2 or 3 inputs joined along the last axis; leading dims equal.
#include <cstring>

#include "ops/op_checks.h"

namespace focal {
namespace {

Status check_concat(const OpCheck& c) {
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  int64_t total = 0;
  for (int i = 0; i < c.input_count(); ++i) {
    const fb::Tensor& x = c.input(i);
    FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
    bool ok = rank(x) == rank(y) && dim_symbol(x, -1) == -1;
    for (int d = 0; ok && d + 1 < rank(x); ++d) ok = same_dim(x, d, y, d);
    if (!ok) return c.fail("'%s' must share the output's leading dims", x.name()->c_str());
    total += dim(x, -1);
  }
  if (dim(y, -1) != total || dim_symbol(y, -1) != -1) return c.fail("output width must be the inputs' sum");
  return Status();
}

Status run_concat(const OpRun& r) {
  const Shape& y = r.outputs[0].shape;
  const size_t width = size_t(y.dims[y.rank - 1]);
  const size_t rows = size_t(y.element_count()) / width;
  float* out = r.outputs[0].mutable_f32();
  size_t column = 0;
  for (int i = 0; i < r.input_count; ++i) {
    const Shape& x = r.inputs[i].shape;
    const size_t part = size_t(x.dims[x.rank - 1]);
    for (size_t row = 0; row < rows; ++row) {
      std::memcpy(out + row * width + column, r.inputs[i].f32() + row * part, part * sizeof(float));
    }
    column += part;
  }
  return Status();
}

}  // namespace

const OpDef& concat_op_def() {
  static const OpDef def = {"Concat", 2, 3, 1, check_concat, run_concat, nullptr};
  return def;
}

}  // namespace focal
