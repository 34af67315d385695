// Structure-aware mutation of a pickle (protocol 2 to 5, as torch.save writes): the
// stream is split into opcodes with their arguments, then opcodes are inserted, deleted,
// duplicated, moved or given other arguments (integers at size boundaries, other
// strings and globals, memo indices), or a block of shared references is inserted
// whose naive expansion is exponential. Opcodes are kept whole, so the unpickler sees
// well-formed instructions in a hostile order instead of garbage it refuses at once.
#pragma once

#include <cstdint>
#include <vector>

#include "mutation_values.h"

namespace focal {
namespace fuzz {

// `mutations` changes to `pickle`; a stream that does not split into opcodes (it is
// not a pickle, or ends inside an argument) keeps its unparsed tail unchanged.
std::vector<uint8_t> mutate_pickle(const std::vector<uint8_t>& pickle, int mutations,
                                   Random& random);

}  // namespace fuzz
}  // namespace focal
