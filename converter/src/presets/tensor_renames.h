// `--rename FROM=TO`: regular expressions (ECMAScript) that map a checkpoint's tensor
// names onto those a preset or spec looks up, applied once when the checkpoints are read.
#pragma once

#include <string>
#include <vector>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {

// Each rule is "FROM=TO", split at its last '=' (tensor names hold none). Every tensor
// name is rewritten by the first rule whose FROM matches part of it: each match of FROM
// is replaced by TO ($1, $2 ... for its groups, $& for the match). An invalid FROM is an
// error naming it; two tensors ending with one name is an error naming both.
Status rename_tensors(const std::vector<std::string>& rules, std::vector<Checkpoint>* checkpoints);

}  // namespace convert
}  // namespace focal
