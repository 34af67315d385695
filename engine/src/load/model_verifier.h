// Checks the meaning of a structurally verified model: everything the session and the
// ops will later trust without checking again.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/status.h"
#include "focal_generated.h"

namespace focal {

// Limits that keep a hostile file from making verification itself slow or huge.
constexpr uint32_t kMaxTensors = 16384;
constexpr uint32_t kMaxOps = 16384;
constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;  // no real axis is longer
// The largest planned arena: an eighth of the address space (512 MiB on 32-bit targets),
// so rounding it up and adding the ops' workspace can never wrap a size_t, and every
// offset and size inside it fits one.
constexpr uint64_t kMaxArenaBytes = uint64_t(SIZE_MAX / 8);

// `bytes`/`size`: the whole file; `data_offset`: start of its data segment.
Status verify_model_meaning(const fb::Model& model, const uint8_t* bytes, size_t size,
                            uint64_t data_offset);

}  // namespace focal
