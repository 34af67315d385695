// Pool: x [B, S, D] -> y [B, D] by position 0 (CLS), the mean over the valid positions,
// the last valid position, or the maximum over the valid positions; valid positions from
// the optional mask [B, S]. No valid position: zeros.
#include <algorithm>
#include <vector>

#include "reference/reference_ops.h"

namespace focal {
namespace reference {

Status pool_op(const OpContext& c) {
  const Operand& x = c.in(0);
  const size_t batch = x.dim(0), seq = x.dim(1), dim = x.dim(2);
  std::vector<int64_t> lengths(batch, static_cast<int64_t>(seq));
  if (c.has_input(1)) FOCAL_RETURN_IF_ERROR(mask_lengths(c.in(1), batch, seq, "mask", &lengths));
  const fb::PoolMode mode = c.op.options_as_PoolOptions()->mode();
  for (size_t b = 0; b < batch; ++b) {
    const size_t length = static_cast<size_t>(lengths[b]);
    double* out = c.outputs[0].values + b * dim;
    const double* rows = x.values + b * seq * dim;
    for (size_t i = 0; i < dim; ++i) {
      if (mode == fb::PoolMode_Cls) {
        out[i] = rows[i];  // the mask is ignored
      } else if (length == 0) {
        out[i] = 0.0;
      } else if (mode == fb::PoolMode_Last) {
        out[i] = rows[(length - 1) * dim + i];
      } else if (mode == fb::PoolMode_Max) {
        out[i] = rows[i];
        for (size_t s = 1; s < length; ++s) out[i] = std::max(out[i], rows[s * dim + i]);
      } else {
        double sum = 0.0;
        for (size_t s = 0; s < length; ++s) sum += rows[s * dim + i];
        out[i] = sum / static_cast<double>(length);
      }
    }
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
