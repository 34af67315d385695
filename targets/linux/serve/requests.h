// The bodies of focal serve's POST routes, parsed with the converter's bounded JSON
// reader (json/json_file.h: size and nesting checked before the parser recurses) and
// checked field by field. Unknown fields are ignored, as OpenAI's clients send many
// (user, presence_penalty, ...); a known field of the wrong type or out of range is a
// 400 naming it. Limits that depend on a model (prompt tokens, the KV cache) are checked
// where the model is known (served_model.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/chat_prompt.h"
#include "focal/generate.h"
#include "serve/api_error.h"

namespace focal {
namespace serve {

// Bounds of a request's own fields, stated in the refusals.
constexpr size_t kMaxStopStrings = 4;       // OpenAI's limit
constexpr size_t kMaxStopBytes = 256;       // each stop string
constexpr size_t kMaxEmbeddingInputs = 64;  // texts in one /v1/embeddings request
constexpr size_t kMaxChatMessages = 256;
constexpr size_t kMaxBeam = 16;             // /v1/translations beam_width

struct Sampling {
  SamplingOptions options;
  bool seed_given = false;
};

// /v1/completions and /v1/chat/completions.
struct GenerationRequest {
  std::string model;
  std::string prompt;                  // completions: the text (or prompt_ids)
  std::vector<int32_t> prompt_ids;     // completions: "prompt" given as token ids
  std::vector<cli::ChatTurn> messages; // chat
  size_t max_tokens = 16;
  Sampling sampling;
  std::vector<std::string> stop;
  bool stream = false;
};

struct EmbeddingRequest {
  std::string model;
  std::vector<std::string> inputs;
};

struct TranslationRequest {
  std::string model;
  std::string input;
  size_t max_tokens = 64;
  size_t beam_width = 1;
  bool attention = false;  // return the alignment [target][source]
};

// Each returns an error (ok() when the body is a valid request of that route).
ApiError parse_completion(const std::string& body, GenerationRequest* out);
ApiError parse_chat(const std::string& body, GenerationRequest* out);
ApiError parse_embedding(const std::string& body, EmbeddingRequest* out);
ApiError parse_translation(const std::string& body, TranslationRequest* out);

}  // namespace serve
}  // namespace focal
