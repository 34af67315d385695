// Checks the meaning of a structurally verified model: everything the session and the
// ops will later trust without checking again.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/limits.h"
#include "focal/status.h"
#include "focal_generated.h"

namespace focal {

// `bytes`, `size`: the whole file; `data_offset`: start of its data segment.
Status verify_model_meaning(const fb::Model& model, const uint8_t* bytes, size_t size,
                            uint64_t data_offset);

}  // namespace focal
