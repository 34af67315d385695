// Token embedding into int8 activations (qint_kernels.h): gather and requantize per row,
// plus a learned position's row.
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {

bool qembedding_gather(const QEmbeddingParams& p, const int32_t* ids, size_t count, int8_t* y) {
  bool all_valid = true;
  for (size_t t = 0; t < count; ++t) {
    int8_t* out = y + t * p.width;
    const bool valid = ids[t] >= 0 && size_t(ids[t]) < p.vocab;
    all_valid = all_valid && valid;
    if (!valid) {
      for (size_t d = 0; d < p.width; ++d) out[d] = int8_t(p.output_zero_point);
      continue;
    }
    const size_t id = size_t(ids[t]);
    const int8_t* row = p.table + id * p.width;
    // Each row's multiplier and shift taken apart once (qint::Requantizer), in locals
    // that out's int8_t stores cannot make the compiler reload.
    const qint::Requantizer token = qint::make_requantizer(p.multiplier[id], p.shift[id]);
    const int32_t zero_point = p.output_zero_point;
    const size_t width = p.width;
    if (p.positions == nullptr) {
      for (size_t d = 0; d < width; ++d) {
        out[d] = int8_t(qint::clamp(qint::requantize(row[d], token) + zero_point, -128, 127));
      }
      continue;
    }
    const size_t at = t % p.seq;
    const int8_t* position = p.positions + at * width;
    const qint::Requantizer place = qint::make_requantizer(p.position_multiplier[at], p.position_shift[at]);
    for (size_t d = 0; d < width; ++d) {
      const int32_t q = qint::requantize(row[d], token) + qint::requantize(position[d], place);
      out[d] = int8_t(qint::clamp(q + zero_point, -128, 127));
    }
  }
  return all_valid;
}

}  // namespace kernels
}  // namespace focal
