#include "hf/hf_folder.h"

#include "assign_or_return.h"

#include "hf/folder_tokenizer.h"
#include "json/json_file.h"

namespace focal {
namespace convert {
namespace {

// The weights: a single file, else a shard index and its shards (safetensors first, as
// transformers prefers them).
Status find_weights(const std::string& dir, HfFolder* folder) {
  for (const char* format : {"model.safetensors", "pytorch_model.bin"}) {
    const std::string single = dir + "/" + format;
    if (file_exists(single)) {
      folder->weights = {single};
      return Status();
    }
    const std::string index = single + ".index.json";
    if (file_exists(index)) {
      FOCAL_ASSIGN_OR_RETURN(ShardIndex shards, read_shard_index(index));
      folder->weights = shards.files;
      folder->shards = std::make_unique<ShardIndex>(std::move(shards));
      return Status();
    }
  }
  return Status::error(StatusCode::kIoError,
                       "Hugging Face folder '%s' has no weights: model.safetensors, model.safetensors.index.json, "
                       "pytorch_model.bin or pytorch_model.bin.index.json",
                       dir.c_str());
}

Status read_generation(const std::string& dir, const std::string& config_path, HfFolder* folder) {
  const std::string path = dir + "/generation_config.json";
  nlohmann::json generation = nlohmann::json::object();
  if (file_exists(path)) {
    FOCAL_ASSIGN_OR_RETURN(generation, read_json_object(path, "generation config"));
  }
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json config, read_json_object(config_path, "config"));
  FOCAL_ASSIGN_OR_RETURN(folder->generation, generation_ids(generation, config));
  return Status();
}

}  // namespace

Result<HfFolder> read_hf_folder(const std::string& dir_given) {
  std::string dir = dir_given;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  HfFolder folder;
  FOCAL_ASSIGN_OR_RETURN(folder.sentence, read_sentence_modules(dir));
  const std::string model_dir = folder.sentence.present ? folder.sentence.transformer_dir : dir;
  folder.config = model_dir + "/config.json";
  if (!file_exists(folder.config)) {
    return Status::error(StatusCode::kIoError, "Hugging Face folder '%s' has no config.json", model_dir.c_str());
  }
  FOCAL_RETURN_IF_ERROR(find_weights(model_dir, &folder));
  FOCAL_RETURN_IF_ERROR(read_generation(model_dir, folder.config, &folder));
  // sentence-transformers keeps the tokenizer beside the Transformer module's weights.
  const FolderTokenizers marian = find_marian_tokenizers(model_dir);
  if (!marian.source.empty()) {
    folder.tokenizer = marian.source;
    folder.target_tokenizer = marian.target;
    return folder;
  }
  FOCAL_ASSIGN_OR_RETURN(folder.tokenizer, find_folder_tokenizer(model_dir, &folder.warnings));
  return folder;
}

}  // namespace convert
}  // namespace focal
