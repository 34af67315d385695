#include "presets/preset.h"

#include <algorithm>

#include "json/json_integer.h"

namespace focal {
namespace convert {
namespace {

const Preset kPresets[] = {
    {"bert", "BERT encoder (HF names, config.json): embeddings, post-LN layers, pooler, classifier",
     build_bert},
    {"roberta", "RoBERTa / XLM-R encoder (HF names, config.json): BERT's layers, positions from padding_idx + 1, "
                "classification head",
     build_roberta},
    {"distilbert", "DistilBERT encoder (HF names, config.json): no token types, pre_classifier + ReLU + classifier",
     build_distilbert},
    {"torch-encoder",
     "nn.TransformerEncoder classifier: embedding, learned positions, pre/post-LN, CLS/mean pooling",
     build_torch_encoder},
    {"torch-transformer-encoder", "a bare nn.TransformerEncoder on embeddings: src, src_key_padding_mask -> output",
     build_torch_transformer_encoder},
    {"gpt2", "GPT-2 decoder (HF names, config.json) with KV cache and tied LM head", build_gpt2},
    {"llama", "Llama decoder (HF names, config.json): RMSNorm, RoPE (llama3 scaling), SwiGLU, grouped-query, "
     "KV cache; Llama 3.2, SmolLM2, Mistral (sliding_window)",
     build_llama},
    {"qwen2", "Qwen2 / Qwen2.5 decoder (HF names, config.json): Llama's with q/k/v biases, tied embeddings",
     build_qwen2},
    {"qwen3", "Qwen3 decoder (HF names, config.json): Qwen2's without biases, RMSNorm per head on q and k "
              "(q_norm, k_norm), head_dim from the config",
     build_qwen3},
    {"gemma", "Gemma decoder (HF names, config.json): RMSNorm by 1 + w, scaled embeddings, GeGLU, multi-query",
     build_gemma},
    {"phi3", "Phi-3 decoder (HF names, config.json): Llama's with fused qkv_proj and gate_up_proj", build_phi3},
    {"torch-transformer",
     "nn.Transformer encoder-decoder on embeddings (src, tgt): stages encode and decode",
     build_torch_transformer},
    {"marian",
     "Marian / opus-mt translation (HF MarianMTModel, config.json): sinusoidal positions, post-LN, tied "
     "embeddings, final_logits_bias; stages encode and decode",
     build_marian},
    {"t5",
     "T5 / Flan-T5 encoder-decoder (HF names, config.json): relative position bias, RMS norm, gated-GELU; "
     "stages encode and decode",
     build_t5},
    {"torch-mha", "a bare nn.MultiheadAttention: query, key_value, key_padding_mask -> output", build_torch_mha},
    {"torch-decoder", "nn.TransformerDecoder on embeddings: tgt (causal), memory, memory_key_padding_mask -> output",
     build_torch_decoder},
    {"rnn-seq2seq",
     "LSTM/GRU encoder-decoder with Bahdanau or Luong attention: stages encode (input_ids, attention_mask) "
     "and decode (decoder_input_ids)",
     build_rnn_seq2seq},
    {"rnn-classifier", "embedding, (bi)LSTM/GRU, attention pooling, classifier (sigmoid or softmax)",
     build_rnn_classifier},
    {"keras-classifier",
     "the same classifier from a Keras .h5 or .keras (Embedding, (Bidirectional) LSTM/GRU, attention, Dense): "
     "input_ids alone, as the Keras model",
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

namespace {

bool has_value(const nlohmann::json& config, const char* key) {
  return config.is_object() && config.contains(key) && !config.at(key).is_null();
}

Status wrong_type(const char* key, const char* type, const nlohmann::json& value) {
  return config_refused(std::string("'") + key + "' must be " + type + ", not " + value.dump());
}

}  // namespace

Result<int64_t> config_int(const nlohmann::json& config, const char* key) {
  if (!config.is_object() || !config.contains(key)) return config_refused(std::string("config lacks '") + key + "'");
  return read_json_integer(config.at(key), key);
}

Result<int64_t> config_int(const nlohmann::json& config, const char* key, int64_t fallback) {
  return read_json_integer_or(config, key, fallback);
}

Result<double> config_number(const nlohmann::json& config, const char* key, double fallback) {
  if (!has_value(config, key)) return fallback;
  const nlohmann::json& value = config.at(key);
  if (!value.is_number()) return wrong_type(key, "a number", value);
  return value.get<double>();
}

Result<float> config_float(const nlohmann::json& config, const char* key, double fallback) {
  FOCAL_ASSIGN_OR_RETURN(const double value, config_number(config, key, fallback));
  return static_cast<float>(value);
}

Result<bool> config_bool(const nlohmann::json& config, const char* key, bool fallback) {
  if (!has_value(config, key)) return fallback;
  const nlohmann::json& value = config.at(key);
  if (!value.is_boolean()) return wrong_type(key, "true or false", value);
  return value.get<bool>();
}

Result<std::string> config_string(const nlohmann::json& config, const char* key, const std::string& fallback) {
  if (!has_value(config, key)) return fallback;
  const nlohmann::json& value = config.at(key);
  if (!value.is_string()) return wrong_type(key, "a string", value);
  return value.get<std::string>();
}

Status config_refused(const std::string& why) {
  return Status::error(StatusCode::kInvalidArgument, "%s", why.c_str());
}

Status config_error(const PresetOptions& options, const Status& why) {
  if (options.preset == nullptr) return Status::error(why.code(), "config: %s", why.message());
  return Status::error(why.code(), "preset %s: config: %s", options.preset, why.message());
}

Result<int64_t> planned_seq_within(const PresetOptions& options, int64_t model_limit, int64_t cap,
                                   const char* limit_key) {
  const int64_t seq = options.max_seq > 0 ? options.max_seq : std::min(model_limit, cap);
  if (seq > model_limit) {
    return Status::error(StatusCode::kInvalidArgument, "--max-seq %lld exceeds %s %lld", static_cast<long long>(seq),
                         limit_key, static_cast<long long>(model_limit));
  }
  return seq;
}

}  // namespace convert
}  // namespace focal
