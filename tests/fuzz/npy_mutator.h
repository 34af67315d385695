// Structure-aware mutation of a .npy array (alone or as an .npz member): the header's
// Python-literal dict gets another descr, shape or fortran_order, or its length field
// lies; the magic and version stay, so the reader's parsing of the header is reached.
#pragma once

#include <cstdint>
#include <vector>

#include "mutation_values.h"

namespace focal {
namespace fuzz {

// Empty when `file` does not start with a .npy magic and a complete header.
std::vector<uint8_t> mutate_npy(const std::vector<uint8_t>& file, Random& random);

}  // namespace fuzz
}  // namespace focal
