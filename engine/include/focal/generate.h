// Text generation with a decoder-only model: a prefill run over the prompt, then one
// run per new token, each appending to the session's KV caches; the next token is
// chosen from the last position's logits by greedy or seeded random sampling.
// Everything runs in the session's arena and the caller's scratch: no allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/session.h"
#include "focal/status.h"

namespace focal {

struct SamplingOptions {
  float temperature = 0.0f;  // 0: greedy (argmax, the lowest id on ties)
  int top_k = 0;             // keep the k most likely tokens; 0: all
  float top_p = 1.0f;        // keep the smallest set whose probability reaches top_p
  uint64_t seed = 0;         // same seed, same model, same tokens
};

// A small, fast generator (SplitMix64 seeding xoshiro256**); not for cryptography.
class Random {
 public:
  explicit Random(uint64_t seed);
  uint64_t next();
  float uniform();  // in [0, 1), 24 random bits

 private:
  uint64_t s_[4];
};

// Scratch a sampler needs for a vocabulary (bytes): probabilities and candidate ids.
constexpr size_t sampler_scratch_bytes(size_t vocab) { return vocab * (sizeof(float) + sizeof(int32_t)); }

class Sampler {
 public:
  // `scratch` holds sampler_scratch_bytes(vocab) bytes, 4-byte aligned, caller-owned.
  static Result<Sampler> create(const SamplingOptions& options, size_t vocab, void* scratch,
                                size_t scratch_bytes);
  // The next token from logits[vocab]. NaN logits count as the lowest.
  int32_t sample(const float* logits);

 private:
  Sampler(const SamplingOptions& options, size_t vocab, float* probs, int32_t* ids)
      : options_(options), vocab_(vocab), probs_(probs), ids_(ids), random_(options.seed) {}
  size_t keep_top_k(const float* logits);
  size_t softmax_and_top_p(size_t count);

  SamplingOptions options_;
  size_t vocab_;
  float* probs_;
  int32_t* ids_;
  Random random_;
};

// Called with each generated token; return false to stop early.
using TokenCallback = bool (*)(int32_t token, void* user);

struct GenerateOptions {
  size_t max_new_tokens = 16;
  int32_t end_token = -1;  // stop after producing it; -1: none
  // Further tokens that stop it as end_token does (generation_config.json's list of eos
  // ids: Llama 3's <|end_of_text|>, <|eom_id|>, <|eot_id|>); the caller's memory.
  const int32_t* end_tokens = nullptr;
  size_t end_token_count = 0;
};

// Resets the session's state, prefills `prompt` (input "input_ids", output "logits"
// [1, vocab], or [1, seq, vocab] from a decoder converted with all-position logits, of
// which the last row chooses; batch 1) and generates up to max_new_tokens tokens, calling `on_token` for each.
// Fails with kOutOfRange when prompt + new tokens exceed the KV cache, before running.
Status generate(Session& session, const int32_t* prompt, size_t prompt_length, Sampler& sampler,
                const GenerateOptions& options, TokenCallback on_token, void* user);

}  // namespace focal
