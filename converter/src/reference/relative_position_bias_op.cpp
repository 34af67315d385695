// RelativePositionBias: rows [H, 2L - 1], row h's entry L - 1 + d = table[bucket(d), h]
// for every distance |d| < L (the engine fills the ones its run can see; these are the
// same values). The bucket is the engine's own function (an index both must agree on
// exactly, focal/internal/relative_position_bucket.h); the values are the table's.
#include "focal/internal/relative_position_bucket.h"
#include "reference/reference_ops.h"

namespace focal {
namespace reference {

Status relative_position_bias_op(const OpContext& c) {
  const fb::RelativePositionBiasOptions& o = *c.op.options_as_RelativePositionBiasOptions();
  const Operand& table = c.in(1);
  const Operand& rows = c.outputs[0];
  const size_t heads = rows.dim(0), length = rows.dim(1);
  const int64_t center = static_cast<int64_t>(length / 2);
  for (int64_t d = -center; d <= center; ++d) {
    const size_t bucket = static_cast<size_t>(relative_position_bucket(d, o.num_buckets(), o.max_distance(), o.bidirectional()));
    for (size_t h = 0; h < heads; ++h) rows.values[h * length + static_cast<size_t>(center + d)] = table.at(bucket * heads + h);
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
