// Marian / opus-mt translation models: transformers' MarianMTModel (and MarianModel), by
// its names and config.json, written from src/transformers/models/marian/modeling_marian.py
// (transformers 4.5x; the layers are BartEncoderLayer / BartDecoderLayer copies). The
// "model." prefix of MarianMTModel is optional; sizes come from the tensors.
//   model.shared          the token table [vocab, d_model], also encoder/decoder embed_tokens
//                         and (tie_word_embeddings, the default) lm_head: stored once
//   embed_positions       sinusoids in Marian's layout (presets/marian_positions.h), no
//                         padding offset; checked against the checkpoint's when it has them
//   layers                post-LN (self-attention, [cross-attention,] feed-forward with
//                         activation_function), q/k/v/out_proj with biases, LayerNorm eps 1e-5;
//                         no final stack norm and no layernorm_embedding
//   final_logits_bias     [1, vocab] added to the logits (zeros when absent, as transformers does)
// Tokens are scaled by sqrt(d_model) when scale_embedding is true (MarianConfig's default
// is false; opus-mt configs set true). Two stages, as focal::translate() drives them:
//   encode: inputs by transformers' names, input_ids and attention_mask [batch, src_seq]
//           (optional, as in transformers: unset, every position is a token); output
//           encoder_last_hidden_state [batch, src_seq, d_model]; each decoder layer's
//           cross-attention K and V kept as states;
//   decode: input decoder_input_ids [batch, seq] (one position per step, or a whole
//           target); output logits [batch, seq, vocab] at every position given, as
//           transformers returns them, over a causal KV cache.
// Hyperparameters for `focal generate`: decoder_start_id (decoder_start_token_id, pad in
// Marian), eos_id, pad_id, max_length, and source_eos "append" (MarianTokenizer ends
// every source with </s>).
#include <cmath>

#include "presets/decoder_common.h"
#include "presets/encoder_decoder.h"
#include "presets/hf_config.h"
#include "presets/marian_positions.h"
#include "presets/module_prefix.h"

namespace focal {
namespace convert {
namespace {

struct MarianModelConfig {
  TorchStack encoder, decoder;
  int64_t vocab = 0, positions = 0, max_src = 0, max_tgt = 0;
  float embed_scale = 1.0f;
  bool tied = true;
  int64_t decoder_start = 0, eos = 0, pad = 0, max_length = 0;
};

Result<fb::Activation> marian_activation(const nlohmann::json& config) {
  FOCAL_ASSIGN_OR_RETURN(const std::string act, config_string(config, "activation_function", "gelu"));
  if (act == "swish" || act == "silu") return fb::Activation_Silu;
  if (act == "gelu") return fb::Activation_GeluErf;
  if (act == "gelu_new" || act == "gelu_pytorch_tanh") return fb::Activation_GeluTanh;
  if (act == "relu") return fb::Activation_Relu;
  return config_refused("activation_function \"" + act + "\" is not one of swish, silu, gelu, gelu_new, relu");
}

// The encoder or decoder stack under `prefix` ("encoder." or "decoder."), its sizes from
// the tensors and the config keys (encoder_layers, encoder_attention_heads, encoder_ffn_dim).
Result<TorchStack> marian_stack(WeightSource& w, const nlohmann::json& config, const PresetOptions& options,
                                const std::string& side) {
  const std::string prefix = side + ".";
  for (const char* unused : {"layer_norm.weight", "layernorm_embedding.weight"}) {
    if (w.has(prefix + unused)) {
      return preset_refused(options, "tensor '" + w.stored_name(prefix + unused) +
                                         "' is not Marian's (an mBART/BART-style norm): the marian preset has none");
    }
  }
  TorchStack s;
  s.prefix = prefix;
  s.layer.names = bart_naming();
  const std::string layers_key = side + "_layers", heads_key = side + "_attention_heads", ffn_key = side + "_ffn_dim";
  FOCAL_ASSIGN_OR_RETURN(s.layers, layers_from_tensors(w, config, layers_key.c_str(), prefix + "layers.",
                                                       ".self_attn.q_proj.weight"));
  FOCAL_ASSIGN_OR_RETURN(s.layer.d_model, size_from_tensor(w, config, "d_model", "shared.weight", 1));
  FOCAL_ASSIGN_OR_RETURN(s.layer.feedforward,
                         size_from_tensor(w, config, ffn_key.c_str(), prefix + "layers.0.fc1.weight", 0));
  FOCAL_ASSIGN_OR_RETURN(s.layer.heads, head_count(config, heads_key.c_str(), 16, options));
  s.d_model_source = w.stored_name("shared.weight");
  const Status rest = [&]() -> Status {
    FOCAL_ASSIGN_OR_RETURN(s.layer.activation, marian_activation(config));
    FOCAL_ASSIGN_OR_RETURN(const bool pre_ln, config_bool(config, "normalize_before", false));
    if (pre_ln) return config_refused("normalize_before true (pre-LN) is not Marian's post-LN layer");
    return Status();
  }();
  if (!rest.ok()) return config_error(options, rest);
  if (s.layer.heads < 1 || s.layer.d_model % s.layer.heads != 0) {
    return preset_refused(options, heads_key + " " + std::to_string(s.layer.heads) + " does not divide d_model " +
                                       std::to_string(s.layer.d_model));
  }
  return s;
}

// decoder_start_token_id, eos, pad and max_length with MarianConfig's defaults.
Status read_generation_ids(const nlohmann::json& config, MarianModelConfig* c) {
  FOCAL_ASSIGN_OR_RETURN(c->pad, config_int(config, "pad_token_id", 58100));
  FOCAL_ASSIGN_OR_RETURN(c->decoder_start, config_int(config, "decoder_start_token_id", c->pad));
  FOCAL_ASSIGN_OR_RETURN(c->eos, config_int(config, "eos_token_id", 0));
  FOCAL_ASSIGN_OR_RETURN(c->max_length, config_int(config, "max_length", 512));
  for (const int64_t id : {c->pad, c->decoder_start, c->eos}) {
    if (id < 0 || id >= c->vocab) {
      return config_refused("pad_token_id, decoder_start_token_id and eos_token_id must be token ids below " +
                            std::to_string(c->vocab) + ", found " + std::to_string(id));
    }
  }
  return Status();
}

Status read_embedding_options(const nlohmann::json& config, MarianModelConfig* c) {
  FOCAL_ASSIGN_OR_RETURN(const bool scale, config_bool(config, "scale_embedding", false));
  c->embed_scale = scale ? static_cast<float>(std::sqrt(double(c->encoder.layer.d_model))) : 1.0f;
  FOCAL_ASSIGN_OR_RETURN(c->tied, config_bool(config, "tie_word_embeddings", true));
  FOCAL_ASSIGN_OR_RETURN(const bool shared, config_bool(config, "share_encoder_decoder_embeddings", true));
  if (!shared) return config_refused("share_encoder_decoder_embeddings false (a decoder vocabulary of its own) is not supported");
  FOCAL_ASSIGN_OR_RETURN(const int64_t decoder_vocab, config_int(config, "decoder_vocab_size", c->vocab));
  if (decoder_vocab != c->vocab) {
    return config_refused("decoder_vocab_size " + std::to_string(decoder_vocab) + " differs from vocab_size " +
                          std::to_string(c->vocab));
  }
  return Status();
}

Result<MarianModelConfig> read_config(WeightSource& w, const nlohmann::json& config, const PresetOptions& options) {
  MarianModelConfig c;
  FOCAL_ASSIGN_OR_RETURN(c.encoder, marian_stack(w, config, options, "encoder"));
  FOCAL_ASSIGN_OR_RETURN(c.decoder, marian_stack(w, config, options, "decoder"));
  FOCAL_ASSIGN_OR_RETURN(c.vocab, size_from_tensor(w, config, "vocab_size", "shared.weight", 0));
  FOCAL_ASSIGN_OR_RETURN(c.positions, config_int(config, "max_position_embeddings", 1024));
  const Status rest = [&]() -> Status {
    FOCAL_RETURN_IF_ERROR(read_generation_ids(config, &c));
    return read_embedding_options(config, &c);
  }();
  if (!rest.ok()) return config_error(options, rest);
  FOCAL_ASSIGN_OR_RETURN(c.max_src, planned_seq_within(options, c.positions, 512, "max_position_embeddings"));
  c.max_tgt = c.max_src;
  return c;
}

// A checkpoint tensor that must equal `expected` (tied or computed copies): used, so
// strict conversions account for it, and refused when it differs.
Status check_copy(GraphBuilder& b, const PresetOptions& options, const std::string& name, const Matrix& expected,
                  float tolerance, const char* what) {
  if (!b.weights().has(name)) return Status();
  const Matrix got = b.fetch(name, expected.shape);
  if (!b.status().ok()) return b.status();
  for (size_t i = 0; i < got.values.size(); ++i) {
    if (!(std::fabs(got.values[i] - expected.values[i]) <= tolerance)) {
      return preset_refused(options, "tensor '" + b.weights().stored_name(name) + "' differs from " + what +
                                         " at element " + std::to_string(i));
    }
  }
  return Status();
}

struct Tables {
  int tokens = -1, head = -1, positions = -1, logits_bias = -1;
};

Result<Tables> marian_tables(GraphBuilder& b, const MarianModelConfig& c, const PresetOptions& options) {
  const int64_t d = c.encoder.layer.d_model;
  const Matrix shared = b.fetch("shared.weight", {c.vocab, d});
  if (!b.status().ok()) return b.status();
  for (const char* copy : {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight"}) {
    FOCAL_RETURN_IF_ERROR(check_copy(b, options, copy, shared, 0.0f, "model.shared.weight (they are tied)"));
  }
  Tables t;
  if (c.tied) {
    FOCAL_RETURN_IF_ERROR(check_copy(b, options, "lm_head.weight", shared, 0.0f, "model.shared.weight (tied)"));
    const GraphBuilder::TiedHead tied = b.tied_table("shared.weight", "lm_head.weight (tied to model.shared)", shared);
    t.tokens = tied.table;
    t.head = tied.head;
  } else {
    t.tokens = b.constant("shared.weight", shared);
    t.head = b.param("lm_head.weight", {c.vocab, d});
  }
  const Matrix positions = marian_sinusoids(c.positions, d);
  for (const char* side : {"encoder.embed_positions.weight", "decoder.embed_positions.weight"}) {
    FOCAL_RETURN_IF_ERROR(check_copy(b, options, side, positions, 1e-6f, "Marian's sinusoidal positions"));
  }
  t.positions = b.constant("embed_positions (sinusoidal)", positions);
  if (b.weights().has("final_logits_bias")) {
    Matrix bias = b.fetch("final_logits_bias", {1, c.vocab});
    bias.shape = {c.vocab};
    t.logits_bias = b.constant("final_logits_bias", bias);
  }
  return t;
}

void store_generation_ids(ModelWriter& writer, const MarianModelConfig& c) {
  writer.add_hyperparameter("decoder_start_id", std::to_string(c.decoder_start));
  writer.add_hyperparameter("eos_id", std::to_string(c.eos));
  writer.add_hyperparameter("pad_id", std::to_string(c.pad));
  writer.add_hyperparameter("max_length", std::to_string(c.max_length));
  writer.add_hyperparameter("source_eos", "append");
}

}  // namespace

Status build_marian(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  b.weights().set_prefix(prefix_of(b.weights(), "shared.weight"));  // "model." of MarianMTModel, or none
  FOCAL_ASSIGN_OR_RETURN(const MarianModelConfig c, read_config(b.weights(), config, options));
  FOCAL_ASSIGN_OR_RETURN(const Tables t, marian_tables(b, c, options));
  if (options.logits_option_taken != nullptr) *options.logits_option_taken = true;
  const EncoderDecoderDims d = encoder_decoder_dims(b, options, c.max_src, c.max_tgt, c.encoder.layer.d_model);

  b.writer().begin_stage("encode");
  const int ids = b.input("input_ids", DType::kI32, {d.batch, d.src});
  const int mask = b.optional_input("attention_mask", DType::kI32, {d.batch, d.src}, 1);
  const int x = b.embedding("encoder.embed", ids, t.tokens, t.positions, -1, -1, c.embed_scale);
  const int memory = b.output("encoder_last_hidden_state", {d.batch, d.src, d.width});
  const std::vector<TorchKeys> cross = encode_cross_keys(b, c.encoder, c.decoder, d, x, mask, memory);

  b.writer().begin_stage("decode");
  DecoderGraph g;
  g.batch = d.batch;
  g.seq = d.tgt;
  g.context = {c.max_tgt, -1};
  g.all_positions = true;  // always, as transformers; --logits all is accepted and changes nothing
  g.input_ids = b.input("decoder_input_ids", DType::kI32, {d.batch, d.tgt});
  const int y = b.embedding("decoder.embed", g.input_ids, t.tokens, t.positions, -1, -1, c.embed_scale);
  const int h = decode_with_cache(b, c.decoder, d, y, cross);
  decoder_logits(b, g, h, [](int in) { return in; }, t.head, c.vocab, t.logits_bias);
  store_generation_ids(b.writer(), c);
  return b.status();
}

}  // namespace convert
}  // namespace focal
