// Clip: y = min(max(x, min), max) elementwise with the op's bounds; a NaN stays NaN
// (torch.clamp). Written with std::max/std::min on double and NaN tested first, not as
// the engine's comparisons, so the two are independent.
#include <algorithm>
#include <cmath>

#include "reference/reference_ops.h"

namespace focal {
namespace reference {

Status clip_op(const OpContext& c) {
  const Operand& x = c.in(0);
  const Operand& y = c.outputs[0];
  const fb::ClipOptions& options = *c.op.options_as_ClipOptions();
  const double low = options.min(), high = options.max();
  for (size_t i = 0; i < y.count(); ++i) {
    const double v = x.at(i);
    y.values[i] = std::isnan(v) ? v : std::min(std::max(v, low), high);
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
