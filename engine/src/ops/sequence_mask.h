// Key and pooling masks arrive as [batch, seq] int32 rows of 1s then 0s (the
// attention_mask of tokenizers with right padding); the kernels take lengths.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/status.h"

namespace focal {

// lengths[b] = the number of leading 1s of row b. Any other pattern (a 1 after a 0, a
// value other than 0 or 1) is kInvalidArgument naming the row and position.
Status mask_to_lengths(const int32_t* mask, size_t batch, size_t seq, const char* mask_name,
                       int32_t* lengths);

}  // namespace focal
