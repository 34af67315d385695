// Dense: y[..., out] = act(x[..., in] . W[out, in]^T + b[out]), in double.
#include "reference/reference_ops.h"

namespace focal {
namespace reference {

Status dense_op(const OpContext& c) {
  const Operand& x = c.in(0);
  const Operand& w = c.in(1);
  const Operand& y = c.outputs[0];
  const size_t in = w.dim(1), out = w.dim(0), rows = x.count() / in;
  dense_rows(c, w, &c.in(2), x.values, in, rows, y.values, out);
  const fb::Activation kind = c.op.options_as_DenseOptions()->activation();
  for (size_t i = 0; i < rows * out; ++i) y.values[i] = activation(kind, y.values[i]);
  return Status();
}

}  // namespace reference
}  // namespace focal
