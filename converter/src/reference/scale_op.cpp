// Scale: y = x * scale + shift, elementwise with the op's constants.
#include "reference/reference_ops.h"

namespace focal {
namespace reference {

Status scale_op(const OpContext& c) {
  const Operand& x = c.in(0);
  const Operand& y = c.outputs[0];
  const fb::ScaleOptions& options = *c.op.options_as_ScaleOptions();
  const double scale = options.scale(), shift = options.shift();
  for (size_t i = 0; i < y.count(); ++i) y.values[i] = x.at(i) * scale + shift;
  return Status();
}

}  // namespace reference
}  // namespace focal
