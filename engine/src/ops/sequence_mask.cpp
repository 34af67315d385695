#include "ops/sequence_mask.h"

namespace focal {

Status mask_to_lengths(const int32_t* mask, size_t batch, size_t seq, const char* mask_name,
                       int32_t* lengths) {
  for (size_t b = 0; b < batch; ++b) {
    const int32_t* row = mask + b * seq;
    size_t length = 0;
    while (length < seq && row[length] == 1) ++length;
    for (size_t s = length; s < seq; ++s) {
      if (row[s] != 0) {
        return Status::error(StatusCode::kInvalidArgument,
                             "%s[%zu, %zu] is %d: masks must be 1s then 0s (right padding)",
                             mask_name, b, s, static_cast<int>(row[s]));
      }
    }
    lengths[b] = static_cast<int32_t>(length);
  }
  return Status();
}

}  // namespace focal
