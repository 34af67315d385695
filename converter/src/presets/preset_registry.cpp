#include "presets/preset.h"

#include "json/json_integer.h"

namespace focal {
namespace convert {
namespace {

const Preset kPresets[] = {
    {"bert", "BERT encoder (HF names, config.json): embeddings, post-LN layers, pooler, classifier",
     build_bert},
    {"torch-encoder",
     "nn.TransformerEncoder classifier: embedding, learned positions, pre/post-LN, CLS/mean pooling",
     build_torch_encoder},
    {"gpt2", "GPT-2 decoder (HF names, config.json) with KV cache and tied LM head", build_gpt2},
    {"llama", "Llama decoder (HF names, config.json): RMSNorm, RoPE, SwiGLU, grouped-query, KV cache",
     build_llama},
    {"torch-transformer",
     "nn.Transformer encoder-decoder on embeddings (src, tgt): stages encode and decode",
     build_torch_transformer},
    {"torch-mha", "a bare nn.MultiheadAttention: query, key_value, key_mask -> output", build_torch_mha},
    {"torch-decoder", "nn.TransformerDecoder on embeddings: tgt (causal), memory, memory_mask -> output",
     build_torch_decoder},
    {"rnn-seq2seq",
     "LSTM/GRU encoder-decoder with Bahdanau or Luong attention: stages encode and decode",
     build_rnn_seq2seq},
    {"rnn-classifier", "embedding, (bi)LSTM/GRU, attention pooling, classifier (sigmoid or softmax)",
     build_rnn_classifier},
    {"keras-classifier",
     "the same classifier from a Keras .h5 (Embedding, Bidirectional(LSTM), attention W/b/v, Dense)",
     build_keras_classifier},
};

}  // namespace

const Preset* presets(size_t* count) {
  *count = sizeof(kPresets) / sizeof(kPresets[0]);
  return kPresets;
}

const Preset* find_preset(const std::string& name) {
  for (const Preset& p : kPresets) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

int64_t config_int(const nlohmann::json& config, const char* key) {
  if (!config.contains(key)) throw std::runtime_error(std::string("config lacks '") + key + "'");
  return json_integer(config.at(key), key);
}

int64_t config_int(const nlohmann::json& config, const char* key, int64_t fallback) {
  return json_integer_or(config, key, fallback);
}

double config_number(const nlohmann::json& config, const char* key, double fallback) {
  return config.contains(key) && !config.at(key).is_null() ? config.at(key).get<double>() : fallback;
}

bool config_bool(const nlohmann::json& config, const char* key, bool fallback) {
  return config.contains(key) && !config.at(key).is_null() ? config.at(key).get<bool>() : fallback;
}

std::string config_string(const nlohmann::json& config, const char* key, const std::string& fallback) {
  return config.contains(key) && !config.at(key).is_null() ? config.at(key).get<std::string>() : fallback;
}

int64_t planned_seq(const PresetOptions& options, int64_t model_limit, int64_t cap) {
  if (options.max_seq > 0) return options.max_seq;
  return model_limit < cap ? model_limit : cap;
}

}  // namespace convert
}  // namespace focal
