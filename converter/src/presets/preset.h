// Presets: the architectures `focal convert --preset NAME` knows, each mapping a
// checkpoint's tensor names (and its config.json) onto an engine graph. One file per
// family; the shared PyTorch-module layers are in torch_layers.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "assign_or_return.h"
#include "presets/graph_builder.h"

namespace focal {
namespace convert {

// A sentence-transformers pipeline's tail after the encoder (its Pooling and Normalize
// modules): output sentence_embedding [batch, hidden] pooled over the valid positions
// with `mode`, then L2-normalized when `normalize`.
struct SentencePooling {
  fb::PoolMode mode = fb::PoolMode_Mean;
  bool normalize = false;
};

struct PresetOptions {
  int64_t max_batch = 1;
  int64_t max_seq = 0;  // 0: the preset's default (the model's maximum positions, or 512)
  const char* preset = nullptr;  // the preset's name, for config errors; null: unnamed
  bool logits_all = false;       // --logits all: a decoder's logits at every position
  bool* logits_option_taken = nullptr;  // set by presets that honour logits_all
  std::vector<std::string>* warnings = nullptr;  // what the conversion should tell the user; null: none
  const SentencePooling* sentence = nullptr;      // a sentence-transformers tail to add; null: none
  bool* sentence_taken = nullptr;                 // set by presets that add it (the encoders)
};

struct Preset {
  const char* name;
  const char* description;
  Status (*build)(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
};

const Preset* find_preset(const std::string& name);
const Preset* presets(size_t* count);

// Config values: a required key, or one with a default (taken when the key is absent or
// null). A value of the wrong type or range is an error naming the key; nothing throws.
Result<int64_t> config_int(const nlohmann::json& config, const char* key);
Result<int64_t> config_int(const nlohmann::json& config, const char* key, int64_t fallback);
Result<double> config_number(const nlohmann::json& config, const char* key, double fallback);
Result<float> config_float(const nlohmann::json& config, const char* key, double fallback);  // f32 fields
Result<bool> config_bool(const nlohmann::json& config, const char* key, bool fallback);
Result<std::string> config_string(const nlohmann::json& config, const char* key, const std::string& fallback);
// The sizes HuggingFace's config.json names alike for BERT and Llama: vocab_size,
// hidden_size, num_hidden_layers, num_attention_heads, intermediate_size (hf_config.h
// reads them from the tensors).
struct HfSizes {
  int64_t vocab = 0, hidden = 0, layers = 0, heads = 0, intermediate = 0;
};

// A config value the preset cannot build: an error with this message.
Status config_refused(const std::string& why);
// A config error as `focal convert` reports it: "preset NAME: config: WHY".
Status config_error(const PresetOptions& options, const Status& why);
// A preset's config as read, or its error named as config_error does.
template <class Config>
Result<Config> named_config(const PresetOptions& options, Result<Config> read) {
  if (!read.ok()) return config_error(options, read.status());
  return read;
}

// The sequence limit to plan for: --max-seq, else the model's own limit capped at `cap`;
// an error when --max-seq exceeds the model's limit (config key `limit_key`).
Result<int64_t> planned_seq_within(const PresetOptions& options, int64_t model_limit, int64_t cap,
                                   const char* limit_key);

Status build_bert(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_roberta(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_distilbert(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_torch_encoder(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_torch_transformer_encoder(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_gpt2(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_llama(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_qwen2(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_qwen3(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_gemma(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_phi3(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_rnn_seq2seq(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_rnn_classifier(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_keras_classifier(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_torch_mha(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_torch_decoder(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_torch_transformer(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_marian(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);
Status build_t5(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b);

}  // namespace convert
}  // namespace focal
