#include "writer/tokenizer_table.h"

#include <algorithm>

#include "focal/limits.h"

namespace focal {
namespace {

// Token ids ordered by their strings (bytewise): the engine's sorted_vocab. An entry over
// kMaxTokenBytes is refused: the engine's walks along the vocabulary are bounded by it.
Result<std::vector<int32_t>> sorted_ids(const TokenizerSpec& spec) {
  for (size_t i = 0; i < spec.vocab.size(); ++i) {
    if (spec.vocab[i].size() > kMaxTokenBytes) {
      return Status::error(StatusCode::kInvalidArgument,
                           "tokenizer vocabulary entry %zu ('%.32s...') is %zu bytes; the engine takes at most %zu",
                           i, spec.vocab[i].c_str(), spec.vocab[i].size(), kMaxTokenBytes);
    }
  }
  std::vector<int32_t> order(spec.vocab.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return spec.vocab[size_t(a)] < spec.vocab[size_t(b)]; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (spec.vocab[size_t(order[i])] == spec.vocab[size_t(order[i - 1])]) {
      return Status::error(StatusCode::kInvalidArgument, "tokenizer vocabulary has '%s' twice",
                           spec.vocab[size_t(order[i])].c_str());
    }
  }
  return order;
}

// The added tokens in their strings' order, as the engine walks them by binary searches;
// a token listed twice keeps its first entry.
Result<std::vector<TokenizerSpec::Added>> sorted_added(const TokenizerSpec& spec) {
  std::vector<TokenizerSpec::Added> added;
  for (const TokenizerSpec::Added& a : spec.added_tokens) {
    if (a.id < 0 || size_t(a.id) >= spec.vocab.size() || spec.vocab[size_t(a.id)].empty()) {
      return Status::error(StatusCode::kInvalidArgument, "added token id %d is outside the vocabulary or empty",
                           static_cast<int>(a.id));
    }
    added.push_back(a);
  }
  const auto text = [&](const TokenizerSpec::Added& a) -> const std::string& { return spec.vocab[size_t(a.id)]; };
  std::stable_sort(added.begin(), added.end(), [&](const auto& a, const auto& b) { return text(a) < text(b); });
  added.erase(std::unique(added.begin(), added.end(), [](const auto& a, const auto& b) { return a.id == b.id; }),
              added.end());
  return added;
}

// The BPE merges as id triples ordered by (left, right), and as "a b" text in rank order.
Status merge_rules(const TokenizerSpec& spec, const std::vector<int32_t>& order, std::vector<fb::MergeRule>* rules,
                   std::vector<std::string>* merge_text) {
  const auto id_of = [&](const std::string& s) -> int32_t {
    auto it = std::lower_bound(order.begin(), order.end(), s,
                               [&](int32_t id, const std::string& v) { return spec.vocab[size_t(id)] < v; });
    return it != order.end() && spec.vocab[size_t(*it)] == s ? *it : -1;
  };
  for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
    const auto& m = spec.merges[rank];
    const int32_t left = id_of(m.first), right = id_of(m.second), merged = id_of(m.first + m.second);
    if (left < 0 || right < 0 || merged < 0) {
      return Status::error(StatusCode::kInvalidArgument, "BPE merge %zu '%s %s' uses tokens outside the vocabulary",
                           rank, m.first.c_str(), m.second.c_str());
    }
    rules->emplace_back(left, right, merged, static_cast<int32_t>(rank));
    merge_text->push_back(m.first + " " + m.second);
  }
  std::sort(rules->begin(), rules->end(), [](const fb::MergeRule& a, const fb::MergeRule& b) {
    if (a.left() != b.left()) return a.left() < b.left();
    return a.right() != b.right() ? a.right() < b.right() : a.rank() < b.rank();
  });
  // A pair listed twice keeps its first (lowest) rank, as GPT-2's merges dictionary does.
  const auto same_pair = [](const fb::MergeRule& a, const fb::MergeRule& b) {
    return a.left() == b.left() && a.right() == b.right();
  };
  rules->erase(std::unique(rules->begin(), rules->end(), same_pair), rules->end());
  return Status();
}

}  // namespace

Result<flatbuffers::Offset<fb::Tokenizer>> build_tokenizer(flatbuffers::FlatBufferBuilder& fbb,
                                                           const TokenizerSpec& spec) {
  Result<std::vector<int32_t>> order = sorted_ids(spec);
  if (!order.ok()) return order.status();
  std::vector<fb::MergeRule> rules;
  std::vector<std::string> merge_text;
  FOCAL_RETURN_IF_ERROR(merge_rules(spec, order.value(), &rules, &merge_text));
  std::vector<flatbuffers::Offset<flatbuffers::String>> vocab, merges;
  for (const std::string& s : spec.vocab) vocab.push_back(fbb.CreateString(s));
  for (const std::string& s : merge_text) merges.push_back(fbb.CreateString(s));
  std::vector<flatbuffers::Offset<fb::AddedToken>> added;
  Result<std::vector<TokenizerSpec::Added>> added_order = sorted_added(spec);
  if (!added_order.ok()) return added_order.status();
  for (const TokenizerSpec::Added& a : added_order.value()) {
    added.push_back(fb::CreateAddedToken(fbb, a.id, a.lstrip, a.rstrip, a.special));
  }
  const bool bpe = spec.kind == fb::TokenizerKind_ByteLevelBpe || spec.kind == fb::TokenizerKind_SentencePieceBpe;
  const auto ints = [&](const std::vector<int32_t>& v) { return v.empty() ? 0 : fbb.CreateVector(v); };
  flatbuffers::Offset<fb::ChatFormat> chat = 0;
  if (spec.chat) {
    const ChatFormatSpec& c = *spec.chat;
    chat = fb::CreateChatFormatDirect(fbb, c.name.c_str(), c.bos.c_str(), c.system_prefix.c_str(), c.system_suffix.c_str(),
                                      c.user_prefix.c_str(), c.user_suffix.c_str(), c.assistant_prefix.c_str(),
                                      c.assistant_suffix.c_str(), c.generation_prompt.c_str(), c.default_system.c_str(),
                                      c.system_always, c.system_in_first_user, c.trim_system, c.trim_messages,
                                      c.generation_prompt_always,
                                      c.final_assistant_prefix.empty() ? nullptr : c.final_assistant_prefix.c_str());
  }
  return fb::CreateTokenizer(fbb, spec.kind, fbb.CreateVector(vocab),
                             spec.scores.empty() ? 0 : fbb.CreateVector(spec.scores),
                             merges.empty() ? 0 : fbb.CreateVector(merges),
                             spec.unk_id, spec.bos_id, spec.eos_id, spec.pad_id, fbb.CreateVector(order.value()),
                             bpe ? fbb.CreateVectorOfStructs(rules) : 0, spec.lowercase, spec.add_dummy_prefix,
                             spec.remove_extra_whitespaces, spec.byte_fallback,
                             added.empty() ? 0 : fbb.CreateVector(added), ints(spec.template_single),
                             ints(spec.template_pair), spec.split_pattern, spec.ignore_merges,
                             spec.normalization, chat, spec.strip_accents,
                             spec.charsmap.empty() ? 0
                                                   : fbb.CreateVector(reinterpret_cast<const uint8_t*>(spec.charsmap.data()),
                                                                      spec.charsmap.size()));
}

}  // namespace focal
