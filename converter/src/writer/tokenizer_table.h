// A tokenizer as the writer stores it: the Tokenizer table of schema/focal.fbs with the
// lookup tables the engine searches without allocating (sorted_vocab, merge rules).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "focal/status.h"
#include "focal_generated.h"

namespace focal {

// A chat prompt format to store (schema/focal.fbs ChatFormat has the meaning of each).
struct ChatFormatSpec {
  std::string name, bos, system_prefix, system_suffix, user_prefix, user_suffix, assistant_prefix, assistant_suffix,
      generation_prompt, default_system, final_assistant_prefix;
  bool system_always = false, system_in_first_user = false, trim_system = false, trim_messages = false,
       generation_prompt_always = false;
};

// A tokenizer to store: the writer derives the lookup tables (sorted_vocab, merge rules).
struct TokenizerSpec {
  fb::TokenizerKind kind = fb::TokenizerKind_None;
  std::vector<std::string> vocab;                            // by id
  std::vector<std::pair<std::string, std::string>> merges;   // BPE, in priority order
  std::vector<float> scores;                                 // unigram, one per piece
  int32_t unk_id = -1, bos_id = -1, eos_id = -1, pad_id = -1;
  bool lowercase = false;
  // SentencePiece normalizer flags and byte fallback (unigram, SentencePieceBpe).
  bool add_dummy_prefix = true, remove_extra_whitespaces = false, byte_fallback = false;
  struct Added {
    int32_t id;
    bool lstrip, rstrip;
    bool special = true;  // matched only while special tokens are parsed (schema: AddedToken)
  };
  std::vector<Added> added_tokens;  // matched in the text before the model
  // The post-processor: ids, -1 for the first text, -2 for the second; empty: none.
  std::vector<int32_t> template_single, template_pair;
  // Byte-level BPE's pre-tokenizer regex and tokenizers' BPE option ignore_merges.
  fb::SplitPattern split_pattern = fb::SplitPattern_Gpt2;
  bool ignore_merges = false;
  fb::TextNormalization normalization = fb::TextNormalization_None;
  std::optional<ChatFormatSpec> chat;  // tokenizer_config.json's chat_template, when recognized
  std::string chat_note;               // what became of the chat_template (the converter's progress line)
  // WordPiece: BertNormalizer's strip_accents (AsLowercase: its null, strip when lowercasing).
  fb::AccentStripping strip_accents = fb::AccentStripping_AsLowercase;
  // Unigram: SentencePiece's precompiled_charsmap, the blob as the file holds it; empty: none.
  std::string charsmap;
};

// The tokenizer table with its lookup tables (added tokens in string order); an error for
// a vocabulary entry listed twice or over kMaxTokenBytes, or a merge outside the vocabulary.
Result<flatbuffers::Offset<fb::Tokenizer>> build_tokenizer(flatbuffers::FlatBufferBuilder& fbb,
                                                           const TokenizerSpec& spec);

}  // namespace focal
