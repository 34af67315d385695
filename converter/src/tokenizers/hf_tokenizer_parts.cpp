#include "tokenizers/hf_tokenizer_parts.h"

#include <vector>

#include "json/json_integer.h"

namespace focal {
namespace convert {
namespace {

using nlohmann::json;

// The id of token `name` (given as [name, id] by Bert/RobertaProcessing).
Result<int32_t> named_id(const json& pair, const char* field, const TokenizerSpec& spec) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_number_integer()) {
    return hf_refuse("post_processor", std::string(field) + " is not [token, id]");
  }
  const int64_t id = pair[1].get<int64_t>();
  if (id < 0 || id >= static_cast<int64_t>(spec.vocab.size()) || spec.vocab[size_t(id)] != pair[0].get<std::string>()) {
    return hf_refuse("post_processor", std::string(field) + " '" + pair[0].get<std::string>() +
                                           "' does not match the vocabulary at its id");
  }
  return static_cast<int32_t>(id);
}

// One TemplateProcessing template ("single" or "pair"): its pieces as template steps.
Status read_template(const json& processor, const char* which, std::vector<int32_t>* steps, const TokenizerSpec& spec) {
  const json& pieces = processor.value(which, json());
  const json& specials = processor.value("special_tokens", json::object());
  if (!pieces.is_array()) return hf_refuse("post_processor TemplateProcessing", std::string(which) + " is not a list");
  for (const json& piece : pieces) {
    if (piece.contains("Sequence")) {
      const std::string id = piece["Sequence"].value("id", "");
      if (id != "A" && id != "B") return hf_refuse("post_processor TemplateProcessing", "sequence '" + id + "'");
      steps->push_back(id == "A" ? -1 : -2);
      continue;
    }
    const std::string name = piece.contains("SpecialToken") ? piece["SpecialToken"].value("id", "") : "";
    const json& special = specials.value(name, json());
    if (!special.is_object() || !special.value("ids", json()).is_array()) {
      return hf_refuse("post_processor TemplateProcessing", "special token '" + name + "' is not in special_tokens");
    }
    for (const json& id : special["ids"]) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= int64_t(spec.vocab.size())) {
        return hf_refuse("post_processor TemplateProcessing", "special token '" + name + "' has an id outside the vocabulary");
      }
      steps->push_back(id.get<int32_t>());
    }
  }
  return Status();
}

}  // namespace

Status hf_refuse(const std::string& component, const std::string& what) {
  return Status::error(StatusCode::kUnsupported, "tokenizer.json: %s: %s", component.c_str(), what.c_str());
}

Status read_added_tokens(const json& added, bool normalizable, TokenizerSpec* spec) {
  if (added.is_null()) return Status();
  if (!added.is_array()) return hf_refuse("added_tokens", "not a list");
  for (const json& token : added) {
    const std::string content = token.value("content", "");
    const std::string component = "added token '" + content + "'";
    // Not token.value("id", int64_t{-1}): a float id out of int64_t's range (1e126) would
    // be converted by a plain cast, undefined behaviour (found by fuzz_tokenizer_json).
    const Result<int64_t> read_id = read_json_integer_or(token, "id", -1);
    if (!read_id.ok()) return hf_refuse(component, read_id.status().message());
    const int64_t id = read_id.value();
    if (content.empty() || id < 0 || id > static_cast<int64_t>(spec->vocab.size())) {
      return hf_refuse(component, "empty, or its id does not follow the vocabulary");
    }
    if (token.value("single_word", false)) return hf_refuse(component, "single_word is not supported");
    if (token.value("normalized", false) && !normalizable) {
      return hf_refuse(component, "normalized = true with a normalizer is not supported");
    }
    if (id == static_cast<int64_t>(spec->vocab.size())) {
      spec->vocab.push_back(content);
      if (!spec->scores.empty()) spec->scores.push_back(0.0f);
    } else if (spec->vocab[size_t(id)] != content) {
      return hf_refuse(component, "its id " + std::to_string(id) + " is '" + spec->vocab[size_t(id)] + "'");
    }
    spec->added_tokens.push_back({static_cast<int32_t>(id), token.value("lstrip", false), token.value("rstrip", false),
                                  token.value("special", false)});
  }
  return Status();
}

Status read_post_processor(const json& processor, TokenizerSpec* spec) {
  if (processor.is_null()) return Status();
  const std::string type = processor.value("type", "");
  if (type == "ByteLevel") return Status();  // offsets only
  if (type == "Sequence") {
    for (const json& step : processor.value("processors", json::array())) {
      FOCAL_RETURN_IF_ERROR(read_post_processor(step, spec));
    }
    return Status();
  }
  if (type == "TemplateProcessing") {
    FOCAL_RETURN_IF_ERROR(read_template(processor, "single", &spec->template_single, *spec));
    return read_template(processor, "pair", &spec->template_pair, *spec);
  }
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    Result<int32_t> cls = named_id(processor.value("cls", json()), "cls", *spec);
    if (!cls.ok()) return cls.status();
    Result<int32_t> sep = named_id(processor.value("sep", json()), "sep", *spec);
    if (!sep.ok()) return sep.status();
    spec->template_single = {cls.value(), -1, sep.value()};
    spec->template_pair = {cls.value(), -1, sep.value()};
    if (type == "RobertaProcessing") spec->template_pair.push_back(sep.value());  // <s> A </s></s> B </s>
    spec->template_pair.insert(spec->template_pair.end(), {-2, sep.value()});
    spec->bos_id = cls.value();
    spec->eos_id = sep.value();
    return Status();
  }
  return hf_refuse("post_processor", "type '" + type + "' is not supported");
}

}  // namespace convert
}  // namespace focal
