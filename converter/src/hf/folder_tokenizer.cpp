#include "hf/folder_tokenizer.h"

#include "assign_or_return.h"
#include "json/json_file.h"
#include "tokenizers/hf_tokenizer_json.h"
#include "tokenizers/sentencepiece_model.h"

namespace focal {
namespace convert {
namespace {

// tokenizer_config.json's do_lower_case (BertTokenizer's default: true).
Result<bool> lowercases(const std::string& dir) {
  const std::string path = dir + "/tokenizer_config.json";
  if (!file_exists(path)) return true;
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json config, read_json_object(path, "tokenizer config"));
  if (!config.contains("do_lower_case") || !config.at("do_lower_case").is_boolean()) return true;
  return config.at("do_lower_case").get<bool>();
}

// `path` when `read` takes all of it (it is read again at conversion: files are small),
// else "" with the reason in `warnings`.
template <typename Reader>
std::string readable(const std::string& path, Reader read, std::vector<std::string>* warnings) {
  if (!file_exists(path)) return std::string();
  auto parsed = read(path);
  if (parsed.ok()) return path;
  warnings->push_back(std::string(parsed.status().message()) + ": trying the folder's other tokenizer files");
  return std::string();
}

}  // namespace

FolderTokenizers find_marian_tokenizers(const std::string& dir) {
  const std::string source = dir + "/source.spm", target = dir + "/target.spm", vocab = dir + "/vocab.json";
  if (dir.find(':') != std::string::npos || !file_exists(source) || !file_exists(target) || !file_exists(vocab)) {
    return {};
  }
  return {"sentencepiece:" + source + ":" + vocab, "sentencepiece:" + target + ":" + vocab};
}

Result<std::string> find_folder_tokenizer(const std::string& dir, std::vector<std::string>* warnings) {
  const bool has_json = file_exists(dir + "/tokenizer.json");
  const std::string vocab_txt = dir + "/vocab.txt";
  const std::string vocab_json = dir + "/vocab.json", merges = dir + "/merges.txt";
  if (dir.find(':') == std::string::npos) {
    std::string found = readable(dir + "/tokenizer.json", read_hf_tokenizer_json, warnings);
    for (const char* model : {"spiece.model", "sentencepiece.bpe.model", "tokenizer.model"}) {
      if (found.empty()) found = readable(dir + "/" + model, read_sentencepiece_model, warnings);
    }
    if (!found.empty()) return found;
  }
  if (dir.find(':') != std::string::npos && (file_exists(vocab_txt) || file_exists(vocab_json) || has_json)) {
    warnings->push_back("the folder's path holds ':', which tokenizer specs separate fields with: converted "
                        "without a tokenizer (pass --tokenizer with a path without ':')");
    return std::string();
  }
  if (file_exists(vocab_txt)) {
    FOCAL_ASSIGN_OR_RETURN(const bool lower, lowercases(dir));
    return "wordpiece:" + vocab_txt + (lower ? ":lowercase" : "");
  }
  if (file_exists(vocab_json) && file_exists(merges)) return "bpe:" + vocab_json + ":" + merges;
  warnings->push_back(has_json ? "the folder has no tokenizer file focal reads: converted without a tokenizer (pass "
                                 "--tokenizer SPEC to store one)"
                               : "the folder has no tokenizer files: converted without a tokenizer");
  return std::string();
}

}  // namespace convert
}  // namespace focal
