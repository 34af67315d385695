#include "presets/preset_detection.h"

#include <sstream>
#include <vector>

namespace focal {
namespace convert {
namespace {

// config.json as Hugging Face writes it: its model_type, or an architecture's class name
// prefix ("BertForSequenceClassification").
struct ConfigAnchor {
  const char* preset;
  const char* model_type;
  const char* architecture_prefix;
};

const ConfigAnchor kConfigAnchors[] = {
    {"bert", "bert", "Bert"},
    {"roberta", "roberta", "Roberta"},
    {"roberta", "xlm-roberta", "XLMRoberta"},
    {"distilbert", "distilbert", "DistilBert"},
    {"gpt2", "gpt2", "GPT2"},
    {"llama", "llama", "Llama"},
    {"llama", "mistral", "MistralFor"},  // Llama's layers with a sliding window (sliding_window)
    {"marian", "marian", "MarianMT"},
    {"qwen2", "qwen2", "Qwen2For"},
    {"qwen3", "qwen3", "Qwen3For"},
    {"gemma", "gemma", "GemmaFor"},
    {"phi3", "phi3", "Phi3For"},
    {"t5", "t5", "T5"},
};

// Tensor names, space-separated, that a preset's checkpoints hold under any prefix
// ("bert.", "module.", a wrapper's attribute); a name after '!' must be absent, telling
// apart presets whose checkpoints share the others. One line per preset (or per naming
// it accepts); a checkpoint matching exactly one preset's line picks it. The RNN
// families name their modules freely (`encoder.lstm`, `en.gru`, `rnn`, ...), so they are
// told by what their tensors are instead (recurrent_families below).
struct TensorAnchor {
  const char* preset;
  const char* names;
};

const TensorAnchor kTensorAnchors[] = {
    {"bert", "encoder.layer.0.attention.self.query.weight !roberta.embeddings.word_embeddings.weight"},
    {"roberta", "roberta.embeddings.word_embeddings.weight"},
    {"distilbert", "transformer.layer.0.attention.q_lin.weight"},
    {"gpt2", "h.0.attn.c_attn.weight"},
    {"llama", "layers.0.self_attn.q_proj.weight layers.0.mlp.gate_proj.weight"},
    {"marian", "shared.weight decoder.layers.0.encoder_attn.q_proj.weight final_logits_bias "
               "!encoder.layernorm_embedding.weight !encoder.layer_norm.weight"},
    {"phi3", "layers.0.self_attn.qkv_proj.weight layers.0.mlp.gate_up_proj.weight"},
    {"t5", "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"},
    {"torch-transformer", "encoder.layers.0.self_attn.in_proj_weight decoder.layers.0.multihead_attn.in_proj_weight"},
    {"torch-decoder", "multihead_attn.in_proj_weight !encoder.layers.0.self_attn.in_proj_weight"},
    {"torch-encoder", "self_attn.in_proj_weight embedding.weight !multihead_attn.in_proj_weight"},
    {"torch-transformer-encoder", "self_attn.in_proj_weight linear1.weight !multihead_attn.in_proj_weight "
                                  "!embedding.weight"},
    {"torch-mha", "in_proj_weight out_proj.weight !self_attn.in_proj_weight !multihead_attn.in_proj_weight"},
};

// `name` is `anchor` under some prefix ending in '.' or '/'.
bool ends_with_anchor(const std::string& name, const std::string& anchor) {
  if (name.size() < anchor.size() || name.compare(name.size() - anchor.size(), anchor.size(), anchor) != 0) {
    return false;
  }
  const size_t at = name.size() - anchor.size();
  return at == 0 || name[at - 1] == '.' || name[at - 1] == '/';
}

// The first tensor that is `anchor` under a prefix; empty when none is.
std::string find_anchor(const std::vector<std::string>& names, const std::string& anchor) {
  for (const std::string& name : names) {
    if (ends_with_anchor(name, anchor)) return name;
  }
  return "";
}

// True when every name of the line is there (and every '!' name is not); `*evidence`
// is the first tensor that matched.
bool matches(const std::vector<std::string>& names, const TensorAnchor& anchor, std::string* evidence) {
  std::istringstream words(anchor.names);
  std::string word;
  evidence->clear();
  while (words >> word) {
    const bool absent = word[0] == '!';
    const std::string found = find_anchor(names, absent ? word.substr(1) : word);
    if (absent != found.empty()) return false;
    if (evidence->empty()) *evidence = found;
  }
  return true;
}

// The modules holding a PyTorch nn.LSTM/nn.GRU: "<module>." of every "<module>.weight_ih_l0".
std::vector<std::string> torch_recurrent_modules(const std::vector<std::string>& names) {
  static const std::string kInputWeights = "weight_ih_l0";
  std::vector<std::string> modules;
  for (const std::string& name : names) {
    if (!ends_with_anchor(name, kInputWeights)) continue;
    modules.push_back(name.substr(0, name.size() - kInputWeights.size()));
  }
  return modules;
}

// A Keras file: Keras 2 weight names end in ":0" (`.../recurrent_kernel:0`), Keras 3's
// are `layers/<layer>/.../vars/<i>`.
bool is_keras_recurrent(const std::vector<std::string>& names, std::string* evidence) {
  for (const std::string& name : names) {
    const bool keras2 = name.find("recurrent_kernel:0") != std::string::npos;
    const bool keras3 = name.rfind("layers/", 0) == 0 && name.find("/vars/") != std::string::npos &&
                        (name.find("lstm") != std::string::npos || name.find("gru") != std::string::npos ||
                         name.find("bidirectional") != std::string::npos);
    if (keras2 || keras3) {
      *evidence = name;
      return true;
    }
  }
  return false;
}

// rnn-seq2seq holds two recurrent modules (an encoder's and a decoder's), rnn-classifier
// one; keras-classifier is a Keras file with a recurrent layer.
void recurrent_families(const std::vector<std::string>& names, std::vector<std::string>* candidates,
                        DetectedPreset* detected) {
  std::string evidence;
  const char* preset = nullptr;
  const std::vector<std::string> modules = torch_recurrent_modules(names);
  if (is_keras_recurrent(names, &evidence)) {
    preset = "keras-classifier";
  } else if (modules.size() == 1) {
    preset = "rnn-classifier";
    evidence = modules[0] + "weight_ih_l0";
  } else if (modules.size() >= 2) {
    preset = "rnn-seq2seq";
    evidence = modules[0] + "weight_ih_l0', '" + modules[1] + "weight_ih_l0";
  }
  if (preset == nullptr || find_preset(preset) == nullptr) return;
  candidates->push_back(preset);
  detected->preset = find_preset(preset);
  detected->reason = "tensor '" + evidence + "'";
}

const Preset* from_config(const nlohmann::json& config, std::string* reason) {
  const auto text = [&config](const char* key) {
    return config.contains(key) && config.at(key).is_string() ? config.at(key).get<std::string>() : "";
  };
  const std::string model_type = text("model_type");
  for (const ConfigAnchor& a : kConfigAnchors) {
    if (model_type == a.model_type) {
      *reason = "config.json model_type '" + model_type + "'";
      return find_preset(a.preset);
    }
  }
  if (!config.contains("architectures") || !config.at("architectures").is_array()) return nullptr;
  for (const nlohmann::json& architecture : config.at("architectures")) {
    const std::string name = architecture.is_string() ? architecture.get<std::string>() : "";
    for (const ConfigAnchor& a : kConfigAnchors) {
      if (name.rfind(a.architecture_prefix, 0) == 0) {
        *reason = "config.json architectures '" + name + "'";
        return find_preset(a.preset);
      }
    }
  }
  return nullptr;
}

Status undecided(const std::vector<std::string>& candidates, const nlohmann::json& config) {
  const std::string model_type =
      config.contains("model_type") ? " (config.json model_type " + config.at("model_type").dump() + " is not one it knows)" : "";
  if (candidates.empty()) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--preset auto: no preset recognizes the checkpoint's tensor names%s. Pass --preset "
                         "NAME, or map the names onto a preset's with --rename FROM=TO, or describe the model "
                         "with --spec FILE.json (focal convert --list-presets lists the presets)",
                         model_type.c_str());
  }
  std::string list;
  for (const std::string& c : candidates) list += (list.empty() ? "" : ", ") + c;
  return Status::error(StatusCode::kInvalidArgument,
                       "--preset auto: the checkpoint fits several presets (%s); pass one with --preset NAME",
                       list.c_str());
}

}  // namespace

Result<DetectedPreset> preset_from_config(const nlohmann::json& config) {
  DetectedPreset detected;
  detected.preset = from_config(config, &detected.reason);
  if (detected.preset != nullptr) return detected;
  std::string known;
  for (const ConfigAnchor& a : kConfigAnchors) {
    if (find_preset(a.preset) != nullptr) known += (known.empty() ? "" : ", ") + std::string(a.model_type);
  }
  const std::string model_type = config.contains("model_type") ? config.at("model_type").dump() : "(none)";
  const std::string architectures = config.contains("architectures") ? config.at("architectures").dump() : "(none)";
  return Status::error(StatusCode::kInvalidArgument,
                       "config.json model_type %s, architectures %s: no preset converts this model (model types "
                       "known: %s); pass --preset NAME if one fits",
                       model_type.c_str(), architectures.c_str(), known.c_str());
}

Result<DetectedPreset> detect_preset(const nlohmann::json& config, const WeightSource& weights) {
  DetectedPreset detected;
  detected.preset = from_config(config, &detected.reason);
  if (detected.preset != nullptr) return detected;
  const std::vector<std::string> names = weights.names();
  std::vector<std::string> candidates;
  for (const TensorAnchor& anchor : kTensorAnchors) {
    std::string evidence;
    if (!matches(names, anchor, &evidence) || find_preset(anchor.preset) == nullptr) continue;
    bool listed = false;
    for (const std::string& c : candidates) listed = listed || c == anchor.preset;
    if (listed) continue;
    candidates.push_back(anchor.preset);
    detected.preset = find_preset(anchor.preset);
    detected.reason = "tensor '" + evidence + "'";
  }
  recurrent_families(names, &candidates, &detected);
  if (candidates.size() != 1) return undecided(candidates, config);
  return detected;
}

}  // namespace convert
}  // namespace focal
