#include "tokenizers/hf_tokenizer_json.h"

#include <optional>
#include <string>
#include <utility>
#include <nlohmann/json.hpp>

#include "assign_or_return.h"
#include "json/json_file.h"
#include "tokenizers/base64.h"
#include "tokenizers/chat_template.h"
#include "tokenizers/hf_tokenizer_parts.h"
#include "tokenizers/tokenizer_files.h"

namespace focal {
namespace convert {
namespace {

using nlohmann::json;

const char kMetaspace[] = "\xE2\x96\x81";  // U+2581

std::string type_of(const json& component) {
  return component.is_object() ? component.value("type", "") : (component.is_null() ? "none" : "?");
}

// The pieces of a Sequence (normalizers or pretokenizers), or the component alone.
std::vector<json> steps_of(const json& component, const char* list) {
  if (component.is_null()) return {};
  if (type_of(component) == "Sequence" && component.value(list, json()).is_array()) {
    return component[list].get<std::vector<json>>();
  }
  return {component};
}

// {token: id} into spec->vocab by id.
Status read_vocab_object(const json& vocab, TokenizerSpec* spec) {
  if (!vocab.is_object()) return hf_refuse("model", "vocab is not {token: id}");
  spec->vocab.assign(vocab.size(), std::string());
  std::vector<bool> seen(vocab.size(), false);
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const int64_t id = it.value().is_number_integer() ? it.value().get<int64_t>() : -1;
    if (id < 0 || id >= static_cast<int64_t>(vocab.size()) || seen[size_t(id)]) {
      return hf_refuse("model vocab", "token '" + it.key() + "' has a bad or repeated id");
    }
    seen[size_t(id)] = true;
    spec->vocab[size_t(id)] = it.key();
  }
  return Status();
}

int32_t id_of(const TokenizerSpec& spec, const json& token) {
  if (!token.is_string()) return -1;
  for (size_t i = 0; i < spec.vocab.size(); ++i) {
    if (spec.vocab[i] == token.get<std::string>()) return static_cast<int32_t>(i);
  }
  return -1;
}

// Metaspace (replacement U+2581): whether it prepends one, and whether only to the text's
// first part (prepend_scheme "first", which this engine does not distinguish: refused).
Status read_metaspace(const json& m, TokenizerSpec* spec) {
  if (m.value("replacement", "") != kMetaspace) return hf_refuse("pre_tokenizer Metaspace", "replacement is not U+2581");
  const std::string scheme = m.value("prepend_scheme", m.value("add_prefix_space", true) ? "always" : "never");
  if (scheme != "always" && scheme != "never" && !(scheme == "first" && spec->added_tokens.empty())) {
    return hf_refuse("pre_tokenizer Metaspace", "prepend_scheme '" + scheme + "' with added tokens is not supported");
  }
  spec->add_dummy_prefix = scheme != "never";
  return Status();
}

// A Precompiled normalizer: SentencePiece's character map, base64 in the file (null or
// empty: none, as the tokenizers crate takes it).
Status read_precompiled(const json& n, TokenizerSpec* spec) {
  const json& map = n.value("precompiled_charsmap", json());
  if (map.is_null()) return Status();
  if (!map.is_string()) return hf_refuse("normalizer Precompiled", "precompiled_charsmap is not a string");
  std::optional<std::string> bytes = decode_base64(map.get<std::string>());
  if (!bytes) return hf_refuse("normalizer Precompiled", "precompiled_charsmap is not base64");
  spec->charsmap = std::move(*bytes);
  return Status();
}

// SentencePiece-style text handling (unigram and non-byte-level BPE): a Metaspace
// pre-tokenizer, or Prepend(U+2581) and Replace(" ", U+2581) normalizers; and
// SentencePiece's remove_extra_whitespaces as Strip + Replace(" {2,}", " "). A unigram
// model may have a Precompiled normalizer (T5, XLM-R): SentencePiece's character map; T5's
// file then splits at whitespace before Metaspace (WhitespaceSplit), which after the map
// (it makes tabs, newlines and Unicode spaces " ") is remove_extra_whitespaces.
Status read_sentencepiece_text(const json& file, TokenizerSpec* spec) {
  spec->add_dummy_prefix = false;
  bool escaped = false, stripped = false, collapsed = false;
  for (const json& n : steps_of(file.value("normalizer", json()), "normalizers")) {
    const std::string type = type_of(n);
    const json pattern = n.value("pattern", json::object());
    if (type == "Prepend" && n.value("prepend", "") == kMetaspace) {
      spec->add_dummy_prefix = true;
    } else if (type == "Replace" && pattern.value("String", "") == " " && n.value("content", "") == kMetaspace) {
      escaped = true;
    } else if (type == "Replace" && pattern.value("Regex", "") == " {2,}" && n.value("content", "") == " ") {
      collapsed = true;
    } else if (type == "Strip" && n.value("left", false) && n.value("right", false)) {
      stripped = true;
    } else if (type == "Precompiled" && spec->charsmap.empty()) {
      FOCAL_RETURN_IF_ERROR(read_precompiled(n, spec));
    } else {
      return hf_refuse("normalizer " + type, "not supported for a SentencePiece-style model");
    }
  }
  if (!spec->charsmap.empty() && spec->kind != fb::TokenizerKind_Unigram) {
    return hf_refuse("normalizer Precompiled", "a SentencePiece character map is supported for Unigram models only");
  }
  for (const json& p : steps_of(file.value("pre_tokenizer", json()), "pretokenizers")) {
    // Gemma splits at " " after its normalizer made every space U+2581: nothing to split.
    if (type_of(p) == "Split" && escaped && p.value("pattern", json::object()).value("String", "") == " ") continue;
    if (type_of(p) == "WhitespaceSplit" && !spec->charsmap.empty() && !escaped) {
      stripped = collapsed = true;
      continue;
    }
    if (type_of(p) != "Metaspace") return hf_refuse("pre_tokenizer " + type_of(p), "not supported for this model");
    FOCAL_RETURN_IF_ERROR(read_metaspace(p, spec));
    escaped = true;
  }
  if (!escaped) return hf_refuse("normalizer/pre_tokenizer", "spaces are not replaced by U+2581");
  if (stripped != collapsed) return hf_refuse("normalizer", "Strip without Replace(\" {2,}\") or the reverse");
  spec->remove_extra_whitespaces = stripped;
  return Status();
}

// BertNormalizer + BertPreTokenizer, as the engine's WordPiece implements them
// (engine/src/apps/tokenizer/wordpiece.h): lowercase and strip_accents (true, false or null:
// as lowercase) as the file gives them; clean_text and handle_chinese_chars must be true.
Status read_bert_text(const json& file, TokenizerSpec* spec) {
  const json& n = file.value("normalizer", json());
  if (type_of(n) != "BertNormalizer") return hf_refuse("normalizer " + type_of(n), "WordPiece needs BertNormalizer");
  if (!n.value("clean_text", true) || !n.value("handle_chinese_chars", true)) {
    return hf_refuse("normalizer BertNormalizer", "clean_text and handle_chinese_chars must be true");
  }
  spec->lowercase = n.value("lowercase", true);
  const json accents = n.value("strip_accents", json());
  if (!accents.is_null() && !accents.is_boolean()) {
    return hf_refuse("normalizer BertNormalizer", "strip_accents must be true, false or null");
  }
  spec->strip_accents = accents.is_null() ? fb::AccentStripping_AsLowercase
                        : accents.get<bool>() ? fb::AccentStripping_Strip
                                              : fb::AccentStripping_Keep;
  const std::string pre = type_of(file.value("pre_tokenizer", json()));
  if (pre != "BertPreTokenizer") return hf_refuse("pre_tokenizer " + pre, "WordPiece needs BertPreTokenizer");
  return Status();
}

Status read_wordpiece(const json& file, const json& model, TokenizerSpec* spec) {
  spec->kind = fb::TokenizerKind_WordPiece;
  if (model.value("continuing_subword_prefix", "##") != "##" || model.value("max_input_chars_per_word", json(100)) != json(100)) {
    return hf_refuse("model WordPiece", "continuing_subword_prefix must be \"##\", max_input_chars_per_word 100");
  }
  FOCAL_RETURN_IF_ERROR(read_vocab_object(model.value("vocab", json()), spec));
  spec->unk_id = id_of(*spec, model.value("unk_token", json()));
  return read_bert_text(file, spec);
}

Status read_unigram(const json& file, const json& model, TokenizerSpec* spec) {
  spec->kind = fb::TokenizerKind_Unigram;
  const json& vocab = model.value("vocab", json());
  if (!vocab.is_array()) return hf_refuse("model Unigram", "vocab is not [[piece, score], ...]");
  for (const json& entry : vocab) {
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number()) {
      return hf_refuse("model Unigram", "a vocab entry is not [piece, score]");
    }
    spec->vocab.push_back(entry[0].get<std::string>());
    spec->scores.push_back(entry[1].get<float>());
  }
  const json& unk = model.value("unk_id", json());
  spec->unk_id = unk.is_number_integer() && unk.get<int64_t>() >= 0 && unk.get<int64_t>() < int64_t(vocab.size())
                     ? unk.get<int32_t>() : -1;
  spec->byte_fallback = model.value("byte_fallback", false);
  return read_sentencepiece_text(file, spec);
}

// BPE's merges, "a b" strings or [a, b] pairs, in rank order.
Status read_merges(const json& merges, TokenizerSpec* spec) {
  if (!merges.is_array()) return hf_refuse("model BPE", "merges is not a list");
  for (const json& m : merges) {
    if (m.is_string()) {
      const std::string text = m.get<std::string>();
      const size_t space = text.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 == text.size()) {
        return hf_refuse("model BPE", "merge '" + text + "' is not 'a b'");
      }
      spec->merges.emplace_back(text.substr(0, space), text.substr(space + 1));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      spec->merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
    } else {
      return hf_refuse("model BPE", "a merge is neither 'a b' nor [a, b]");
    }
  }
  return Status();
}

// The Split regexes of the byte-level families, exactly as their tokenizer.json files
// spell them (the engine scans each one by hand: pretokenize.h). Any other regex is refused.
const char kLlama3Regex[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char kQwen2Regex[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char kGpt2Regex[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

Status read_split_regex(const json& split, TokenizerSpec* spec) {
  const std::string regex = split.value("pattern", json::object()).value("Regex", "");
  if (split.value("behavior", "") != "Isolated" || split.value("invert", false)) {
    return hf_refuse("pre_tokenizer Split", "behavior other than Isolated, or invert, is not supported");
  }
  if (regex == kLlama3Regex) {
    spec->split_pattern = fb::SplitPattern_Llama3;
  } else if (regex == kQwen2Regex) {
    spec->split_pattern = fb::SplitPattern_Qwen2;
  } else if (regex == kGpt2Regex) {
    spec->split_pattern = fb::SplitPattern_Gpt2;
  } else {
    return hf_refuse("pre_tokenizer Split", "regex '" + regex + "' is not one of GPT-2's, Llama 3's or Qwen2's");
  }
  return Status();
}

// The byte-level pipeline: no normalizer or NFC; then either ByteLevel with its own
// (GPT-2's) regex, or Split with a known regex followed by ByteLevel without one; never a
// prefix space (no supported family adds one).
Status read_byte_level_text(const json& file, TokenizerSpec* spec) {
  const json& n = file.value("normalizer", json());
  if (type_of(n) == "NFC") {
    spec->normalization = fb::TextNormalization_Nfc;
  } else if (!n.is_null()) {
    return hf_refuse("normalizer " + type_of(n), "not supported for byte-level BPE (NFC is)");
  }
  const std::vector<json> steps = steps_of(file.value("pre_tokenizer", json()), "pretokenizers");
  const json& byte_level = steps.back();
  if (byte_level.value("add_prefix_space", false)) {
    return hf_refuse("pre_tokenizer ByteLevel", "add_prefix_space is not supported");
  }
  if (steps.size() == 1 && byte_level.value("use_regex", true)) return Status();  // GPT-2's own regex
  if (steps.size() == 2 && type_of(steps[0]) == "Split" && !byte_level.value("use_regex", true)) {
    return read_split_regex(steps[0], spec);
  }
  return hf_refuse("pre_tokenizer", "byte-level BPE needs ByteLevel with its regex, or Split then ByteLevel without");
}

// The byte-level pre-tokenizer: ByteLevel alone, or a Sequence ending in it.
bool is_byte_level(const json& file) {
  const std::vector<json> steps = steps_of(file.value("pre_tokenizer", json()), "pretokenizers");
  return !steps.empty() && type_of(steps.back()) == "ByteLevel";
}

Status read_bpe(const json& file, const json& model, TokenizerSpec* spec) {
  if (!model.value("dropout", json()).is_null()) return hf_refuse("model BPE", "dropout is not supported");
  // An empty prefix or suffix is none (GPT-2's and Qwen's files say "").
  for (const char* option : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const json& value = model.value(option, json());
    if (!value.is_null() && !(value.is_string() && value.get<std::string>().empty())) {
      return hf_refuse("model BPE", std::string(option) + " is not supported");
    }
  }
  spec->ignore_merges = model.value("ignore_merges", false);
  FOCAL_RETURN_IF_ERROR(read_vocab_object(model.value("vocab", json()), spec));
  FOCAL_RETURN_IF_ERROR(read_merges(model.value("merges", json()), spec));
  spec->unk_id = id_of(*spec, model.value("unk_token", json()));
  if (is_byte_level(file)) {
    spec->kind = fb::TokenizerKind_ByteLevelBpe;
    return read_byte_level_text(file, spec);
  }
  if (spec->ignore_merges) return hf_refuse("model BPE", "ignore_merges is supported for byte-level BPE only");
  spec->kind = fb::TokenizerKind_SentencePieceBpe;
  spec->byte_fallback = model.value("byte_fallback", false);
  return read_sentencepiece_text(file, spec);
}

// The parts of a parsed tokenizer.json in order; `part` tracks which one is being read,
// for the message when a field has the wrong JSON type (nlohmann throws then).
Result<TokenizerSpec> read_parts(const json& file, const char** part) {
  *part = "model";
  const json& model = file.value("model", json());
  const std::string type = type_of(model);
  TokenizerSpec spec;
  // The model first (added tokens may extend its vocabulary), then the added tokens, and
  // Metaspace's prepend scheme again: "first" is refused only when added tokens split the text.
  using ModelReader = Status (*)(const json&, const json&, TokenizerSpec*);
  const std::pair<const char*, ModelReader> readers[] = {
      {"BPE", read_bpe}, {"WordPiece", read_wordpiece}, {"Unigram", read_unigram}};
  ModelReader reader = nullptr;
  for (const auto& r : readers) {
    if (type == r.first) reader = r.second;
  }
  if (reader == nullptr) return hf_refuse("model " + type, "not supported (BPE, WordPiece and Unigram are)");
  *part = "model, normalizer or pre_tokenizer";
  FOCAL_RETURN_IF_ERROR(reader(file, model, &spec));
  *part = "added_tokens";
  const bool normalizable = file.value("normalizer", json()).is_null();
  FOCAL_RETURN_IF_ERROR(read_added_tokens(file.value("added_tokens", json()), normalizable, &spec));
  *part = "pre_tokenizer";
  if (!spec.added_tokens.empty() && !file.value("pre_tokenizer", json()).is_null()) {
    for (const json& p : steps_of(file["pre_tokenizer"], "pretokenizers")) {
      if (type_of(p) == "Metaspace") FOCAL_RETURN_IF_ERROR(read_metaspace(p, &spec));
    }
  }
  find_special_tokens(&spec);
  *part = "post_processor";
  FOCAL_RETURN_IF_ERROR(read_post_processor(file.value("post_processor", json()), &spec));
  return spec;
}

}  // namespace

Result<TokenizerSpec> read_hf_tokenizer_json(const std::string& path) {
  FOCAL_ASSIGN_OR_RETURN(const json file, read_json_object(path, "tokenizer.json"));
  const char* part = "";
  try {
    Result<TokenizerSpec> spec = read_parts(file, &part);
    if (spec.ok()) FOCAL_RETURN_IF_ERROR(read_chat_template(path, &spec.value()));
    return spec;
  } catch (const json::exception& e) {  // a field of another JSON type than the format's
    return Status::error(StatusCode::kInvalidArgument, "tokenizer.json '%s': %s: a field has the wrong type (%s)",
                         path.c_str(), part, json_error_text(e).c_str());
  }
}

}  // namespace convert
}  // namespace focal
