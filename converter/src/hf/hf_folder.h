// `focal convert --hf DIR`: a Hugging Face model folder as the hub serves it, read into
// what the converter takes. The files, looked for in this order:
//   config.json                            required
//   model.safetensors                      the weights, else
//   model.safetensors.index.json           sharded safetensors (every shard it names), else
//   pytorch_model.bin                      torch.save, else
//   pytorch_model.bin.index.json           sharded torch.save
//   tokenizer files                        folder_tokenizer.h (Marian: source.spm,
//                                          target.spm and vocab.json)
//   generation_config.json                 generation ids (generation_config.h)
//   modules.json, 1_Pooling/config.json,   a sentence-transformers pipeline
//   2_Normalize, sentence_bert_config.json (sentence_modules.h): the encoder's files are
//                                          then in its Transformer module's folder
// Nothing here knows a preset: the preset comes from config.json (preset_detection.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hf/generation_config.h"
#include "hf/sentence_modules.h"
#include "hf/shard_index.h"

namespace focal {
namespace convert {

struct HfFolder {
  std::string config;                  // config.json's path
  std::vector<std::string> weights;    // checkpoint files: one, or every shard
  std::unique_ptr<ShardIndex> shards;  // the index the shards came from; null for one file
  std::string tokenizer;               // a --tokenizer spec; empty: none readable
  std::string target_tokenizer;        // a --target-tokenizer spec (Marian's target.spm); empty: none
  Hyperparameters generation;          // generation.bos_token_id, ... (generation_config.h)
  SentenceModules sentence;
  std::vector<std::string> warnings;
};

Result<HfFolder> read_hf_folder(const std::string& dir);

}  // namespace convert
}  // namespace focal
