// Elementwise and last-axis ops in double: Add, Glu, Copy, Concat, Softmax.
#include <cmath>
#include <vector>

#include "reference/reference_ops.h"

namespace focal {
namespace reference {

// y = a + b over equal shapes.
Status add_op(const OpContext& c) {
  const Operand& y = c.outputs[0];
  for (size_t i = 0; i < y.count(); ++i) y.values[i] = c.in(0).at(i) + c.in(1).at(i);
  return Status();
}

// x [..., 2F] = gate then value; y [..., F] = act(gate) * value.
Status glu_op(const OpContext& c) {
  const Operand& y = c.outputs[0];
  const size_t width = y.dim(-1), rows = y.count() / width;
  const fb::Activation kind = c.op.options_as_GluOptions()->activation();
  const double* x = c.in(0).values;
  for (size_t r = 0; r < rows; ++r) {
    const double* gate = x + r * 2 * width;
    for (size_t i = 0; i < width; ++i) y.values[r * width + i] = activation(kind, gate[i]) * gate[width + i];
  }
  return Status();
}

// y = x, values copied (ids and masks are held as doubles too, exactly).
Status copy_op(const OpContext& c) {
  const Operand& x = c.in(0);
  for (size_t i = 0; i < x.count(); ++i) c.outputs[0].values[i] = x.at(i);
  return Status();
}

// Inputs joined along the last axis; leading dims equal.
Status concat_op(const OpContext& c) {
  const Operand& y = c.outputs[0];
  const size_t width = y.dim(-1), rows = y.count() / width;
  size_t column = 0;
  for (int i = 0; i < c.input_count; ++i) {
    const Operand& x = c.in(i);
    const size_t part = x.dim(-1);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t k = 0; k < part; ++k) y.values[r * width + column + k] = x.at(r * part + k);
    }
    column += part;
  }
  return Status();
}

// Softmax over the last axis (-inf entries give 0; a row of -inf gives zeros).
Status softmax_op(const OpContext& c) {
  const Operand& y = c.outputs[0];
  const size_t width = y.dim(-1), rows = y.count() / width;
  for (size_t r = 0; r < rows; ++r) {
    double* row = y.values + r * width;
    for (size_t i = 0; i < width; ++i) row[i] = c.in(0).at(r * width + i);
    softmax_prefix(row, width, width);
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
