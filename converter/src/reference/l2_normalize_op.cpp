// L2Normalize: y = x / max(||x||_2, epsilon) over the last axis, as PyTorch's
// F.normalize(x, p=2, dim=-1, eps) (its clamp_min keeps a NaN norm, so does this).
#include <cmath>

#include "reference/reference_ops.h"

namespace focal {
namespace reference {

Status l2_normalize_op(const OpContext& c) {
  const Operand& x = c.in(0);
  const size_t width = x.dim(-1);
  const double epsilon = c.op.options_as_L2NormalizeOptions()->epsilon();
  for (size_t start = 0; start < x.count(); start += width) {  // one row of the last axis
    double squares = 0.0;
    for (size_t i = start; i < start + width; ++i) squares += x.at(i) * x.at(i);
    const double norm = std::sqrt(squares);
    const double divisor = norm < epsilon ? epsilon : norm;
    for (size_t i = start; i < start + width; ++i) c.outputs[0].values[i] = x.at(i) / divisor;
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
