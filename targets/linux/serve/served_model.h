// A model as focal serve holds it: the mapped file, what it is (decoder, encoder,
// sequence-to-sequence), its limits, and a fixed set of slots, each a session over its
// own arena with its own thread pool and the buffers a request's inference needs, all
// made at start. A request takes a slot from the scheduler (scheduler.h), runs in it
// and gives it back; inference allocates nothing but the request's own text and results.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/loaded_model.h"
#include "focal/generate.h"
#include "focal/tokenizer.h"
#include "owned_session.h"
#include "serve/api_error.h"
#include "serve/requests.h"

namespace focal {
namespace serve {

enum class ModelKind { kDecoder, kEncoder, kSeq2seq };
const char* kind_name(ModelKind kind);  // "decoder", "encoder", "seq2seq"

struct Slot {
  OwnedSession owned;  // its arena and its thread pool
  std::vector<uint32_t> sampler_scratch;    // decoders: sampler_scratch_bytes(vocab)
  std::vector<char> piece;                  // one token's text, the longest the vocabulary has
  std::vector<int32_t> row;                 // encoders: attention_mask / token_type_ids
  std::vector<float> row_f32;               //   (for f32 masks)
  std::vector<uint64_t> translate_scratch;  // seq2seq
  std::vector<int32_t> tokens;              //   the produced ids
  std::vector<float> alignment;             //   their attention over the source
  bool busy = false;                        // the scheduler's
};

// What a generation produced.
struct Generated {
  std::string text;
  size_t prompt_tokens = 0;
  size_t completion_tokens = 0;
  const char* finish_reason = "length";  // "stop" (end token or stop string), "length", "cancelled"
};

// Streams text as it becomes final (complete UTF-8, no possible start of a stop string);
// returning false (the client left) stops the generation.
using TextSink = bool (*)(std::string_view text, void* user);

struct Translated {
  std::string text;
  size_t source_tokens = 0;
  size_t target_tokens = 0;
  std::vector<float> attention;  // [target_tokens][source_tokens] when asked
};

class ServedModel {
 public:
  // Loads `path` and creates `sessions` slots of `threads` threads each.
  static Result<std::unique_ptr<ServedModel>> open(const std::string& name, const std::string& path, int sessions,
                                                   int threads);

  const std::string& name() const { return name_; }
  ModelKind kind() const { return kind_; }
  const Model& model() const { return loaded_->model; }
  size_t context() const { return context_; }  // positions: KV cache (decoders) or planned sequence
  size_t arena_bytes() const;                  // all slots'
  std::vector<std::unique_ptr<Slot>>& slots() { return slots_; }
  bool has_chat_format() const { return chat_; }

  // Prompt ids of a completion or chat request, its limits checked (prompt tokens within
  // the plan, prompt + max_tokens within the KV cache).
  ApiError prompt_ids(const GenerationRequest& request, bool chat, std::vector<int32_t>* ids) const;
  // Runs in `slot`. `cancel`, when set, stops at the next token ("cancelled").
  ApiError generate(Slot& slot, const GenerationRequest& request, const std::vector<int32_t>& prompt,
                    TextSink sink, void* user, const std::atomic<bool>* cancel, Generated* out) const;

  // Encoders: the ids of each input (limits checked), then one embedding per input.
  ApiError embedding_ids(const std::string& text, std::vector<int32_t>* ids) const;
  ApiError embed(Slot& slot, const std::vector<int32_t>& ids, std::vector<float>* embedding) const;

  ApiError source_ids(const TranslationRequest& request, std::vector<int32_t>* ids) const;
  ApiError translate(Slot& slot, const TranslationRequest& request, const std::vector<int32_t>& source,
                     Translated* out) const;

 private:
  Status create_slots(int sessions, int threads);

  std::string name_;
  std::unique_ptr<cli::LoadedModel> loaded_;
  ModelKind kind_ = ModelKind::kDecoder;
  size_t context_ = 0;        // decoders: KV cache positions; encoders, seq2seq: planned source tokens
  size_t vocab_ = 0;          // decoders: logits' last dim
  size_t max_piece_ = 1;      // the longest token text
  size_t max_batch_ = 1;      // seq2seq: the planned batch (the widest beam)
  size_t max_steps_ = 0;      // seq2seq: decode steps at most
  bool chat_ = false;
  std::vector<int32_t> end_tokens_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace serve
}  // namespace focal
