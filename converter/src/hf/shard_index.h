// Sharded checkpoints as transformers saves them: model.safetensors.index.json (or
// pytorch_model.bin.index.json) {"metadata": {...}, "weight_map": {tensor: shard file}},
// the shards beside it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {

struct ShardIndex {
  std::string path;                          // the index file, for messages
  std::map<std::string, std::string> shard;  // tensor -> shard file name
  std::vector<std::string> files;            // the shards' paths, each once, in first-mention order
};

// The index and its shards' paths (in the index's directory); an error names a shard
// the folder lacks, or a shard name that leaves the directory.
Result<ShardIndex> read_shard_index(const std::string& path);
// Every tensor of the weight map in the shard it names, and no tensor in two shards
// (each error names the tensor and the files).
Status check_shards(const ShardIndex& index, const std::vector<Checkpoint>& shards);

}  // namespace convert
}  // namespace focal
