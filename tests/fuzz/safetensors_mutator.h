// Structure-aware mutation of a safetensors file: [u64 header length][JSON header][data].
// The JSON is parsed and one entry changed (dtype, a shape dim, data_offsets, a field
// removed, an entry duplicated under its own or another name so two tensors share or
// overlap bytes), or the length field lies, or a data byte changes; the rest stays valid
// so the reader's checks of each field are what is reached.
#pragma once

#include <cstdint>
#include <vector>

#include "mutation_values.h"

namespace focal {
namespace fuzz {

// Empty when `file` is not a safetensors file with a JSON object header.
std::vector<uint8_t> mutate_safetensors(const std::vector<uint8_t>& file, Random& random);

}  // namespace fuzz
}  // namespace focal
