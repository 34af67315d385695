// An RNN sequence-to-sequence model with attention, as PyTorch modules in the common
// style (converter/README.md lists the names): `src_embedding`, `encoder` (nn.LSTM or
// nn.GRU, 1 to n layers, bidirectional or not), `bridge_h` / `bridge_c` (decoder initial
// state = tanh(Linear([h_fwd; h_bwd]))), `tgt_embedding`, `decoder` (one layer, same
// cell), `attention.*` and `output`. Attention (config "attention"):
//   bahdanau       score = energy . tanh(query(s_{t-1}) + key(h_j)); the context joins the
//                  decoder input; logits = output([s_t; context])
//   luong_general  score = s_t . W h_j            } context after the step; logits =
//   luong_dot      score = s_t . h_j              } output(tanh(combine([context; s_t])))
//   luong_concat   score = energy . tanh(query(s_t) + key(h_j))
// Two stages. encode: inputs source_ids, source_mask [batch, src_seq]; the encoder, the
// bridge into the decoder state, the memory and its projected keys kept as states.
// decode (once per token): input prev_ids [batch]; outputs logits [batch, tgt_vocab] and
// attention [batch, src_seq]. focal::translate() drives it (greedy or beam search).
#include "presets/preset.h"

namespace focal {
namespace convert {
namespace {

struct Seq2SeqConfig {
  fb::RecurrentCell cell;
  std::string attention;
  int64_t hidden, decoder_hidden, embedding, layers, src_vocab, tgt_vocab, max_src, dirs, units = 0;
  int64_t bos_id, eos_id;
};

Result<fb::RecurrentCell> read_cell(const nlohmann::json& j) {
  FOCAL_ASSIGN_OR_RETURN(const std::string cell, config_string(j, "cell", "lstm"));
  if (cell != "lstm" && cell != "gru") return config_refused("cell must be lstm or gru");
  return cell == "lstm" ? fb::RecurrentCell_Lstm : fb::RecurrentCell_Gru;
}

Result<Seq2SeqConfig> read_config(const nlohmann::json& j) {
  Seq2SeqConfig c;
  FOCAL_ASSIGN_OR_RETURN(c.cell, read_cell(j));
  FOCAL_ASSIGN_OR_RETURN(c.attention, config_string(j, "attention", "bahdanau"));
  if (c.attention != "bahdanau" && c.attention != "luong_general" && c.attention != "luong_dot" &&
      c.attention != "luong_concat") {
    return config_refused("attention must be bahdanau, luong_general, luong_dot or luong_concat");
  }
  FOCAL_ASSIGN_OR_RETURN(c.hidden, config_int(j, "hidden"));
  FOCAL_ASSIGN_OR_RETURN(c.decoder_hidden, config_int(j, "decoder_hidden", c.hidden));
  FOCAL_ASSIGN_OR_RETURN(c.embedding, config_int(j, "embedding"));
  FOCAL_ASSIGN_OR_RETURN(c.layers, config_int(j, "encoder_layers", 1));
  FOCAL_ASSIGN_OR_RETURN(c.src_vocab, config_int(j, "src_vocab"));
  FOCAL_ASSIGN_OR_RETURN(c.tgt_vocab, config_int(j, "tgt_vocab"));
  FOCAL_ASSIGN_OR_RETURN(c.max_src, config_int(j, "max_src_len", 64));
  FOCAL_ASSIGN_OR_RETURN(const bool bidirectional, config_bool(j, "bidirectional", true));
  c.dirs = bidirectional ? 2 : 1;
  FOCAL_ASSIGN_OR_RETURN(c.units, config_int(j, "attention_units", 0));  // 0: from attention.key.weight
  FOCAL_ASSIGN_OR_RETURN(c.bos_id, config_int(j, "bos_id", 1));
  FOCAL_ASSIGN_OR_RETURN(c.eos_id, config_int(j, "eos_id", 2));
  return c;
}

int gates(const Seq2SeqConfig& c) { return c.cell == fb::RecurrentCell_Lstm ? 4 : 3; }

// Encoder layer k of nn.LSTM/nn.GRU `prefix` over x; writes y, h_n and c_n (c_n -1 for GRU).
void encoder_layer(GraphBuilder& b, const Seq2SeqConfig& c, int64_t k, int x, int mask, int64_t in, int y, int h_n,
                   int c_n) {
  const int64_t g = gates(c) * c.hidden;
  const std::string l = std::to_string(k);
  ModelWriter::RecurrentSpec s;
  s.x = x;
  s.mask = mask;
  s.cell = c.cell;
  s.hidden = static_cast<int>(c.hidden);
  s.w_ih = b.param("encoder.weight_ih_l" + l, {g, in});
  s.w_hh = b.param("encoder.weight_hh_l" + l, {g, c.hidden});
  s.b_ih = b.optional_param("encoder.bias_ih_l" + l, {g});
  s.b_hh = b.optional_param("encoder.bias_hh_l" + l, {g});
  if (c.dirs == 2) {
    s.w_ih_r = b.param("encoder.weight_ih_l" + l + "_reverse", {g, in});
    s.w_hh_r = b.param("encoder.weight_hh_l" + l + "_reverse", {g, c.hidden});
    s.b_ih_r = b.optional_param("encoder.bias_ih_l" + l + "_reverse", {g});
    s.b_hh_r = b.optional_param("encoder.bias_hh_l" + l + "_reverse", {g});
  }
  if (!b.status().ok()) return;
  std::vector<int32_t> outputs = {y, h_n};
  if (c_n >= 0) outputs.push_back(c_n);
  b.writer().add_recurrent("encoder.l" + l, s, outputs);
}

int linear(GraphBuilder& b, const std::string& name, int x, int64_t out, int64_t in, bool bias,
           fb::Activation act = fb::Activation_None, int y = -1) {
  const int w = b.param(name + ".weight", {out, in});
  return b.dense(name, x, w, bias ? b.param(name + ".bias", {out}) : -1, act, y);
}

// The energy vector v of additive attention, stored as Linear(units, 1).weight [1, units].
int energy_vector(GraphBuilder& b, int64_t units) {
  Matrix v = b.fetch("attention.energy.weight", {1, units});
  v.shape = {units};
  return b.constant("attention.energy.weight", v);
}

struct Graph {
  GraphBuilder::Dim batch, src;
  int memory = -1, keys = -1, mask = -1, h = -1, c = -1;
};

// The encoder layers over x into g.memory; their final states in *h_n and *c_n.
void encoder_stack(GraphBuilder& b, const Seq2SeqConfig& c, Graph& g, int x, int mask, int* h_n, int* c_n) {
  const int64_t width = c.dirs * c.hidden;
  const bool lstm = c.cell == fb::RecurrentCell_Lstm;
  int64_t in = c.embedding;
  g.memory = b.state("memory", DType::kF32, {g.batch, g.src, {width, -1}});
  for (int64_t k = 0; k < c.layers; ++k) {
    const bool last = k + 1 == c.layers;
    const int y = last ? g.memory : b.activation("encoder.l" + std::to_string(k) + ".y", {g.batch, g.src, {width, -1}});
    *h_n = b.activation("encoder.l" + std::to_string(k) + ".h_n", {g.batch, {width, -1}});
    *c_n = lstm ? b.activation("encoder.l" + std::to_string(k) + ".c_n", {g.batch, {width, -1}}) : -1;
    encoder_layer(b, c, k, x, mask, in, y, *h_n, *c_n);
    x = y;
    in = width;
  }
}

// keys_j = key(h_j), once per source, for additive scoring (the decoder adds query(s) at
// every step); c.units from attention.key.weight when the config leaves it 0.
void additive_keys(GraphBuilder& b, Seq2SeqConfig& c, Graph& g, int64_t width) {
  Result<Matrix> key = c.units > 0 ? b.weights().get("attention.key.weight", {c.units, width})
                                   : b.weights().get_any("attention.key.weight");
  if (!key.ok()) {
    b.fail(key.status());
    return;
  }
  c.units = key->shape.size() == 2 ? key->shape[0] : 0;
  if (key->shape.size() != 2 || key->shape[1] != width) {
    b.fail(Status::error(StatusCode::kInvalidArgument, "attention.key.weight must be [units, %lld]",
                         static_cast<long long>(width)));
    return;
  }
  const int w = b.constant("attention.key.weight", key.value());
  g.keys = b.dense("attention.key", g.memory, w, b.optional_param("attention.key.bias", {c.units}),
                   fb::Activation_None, b.state("attention.keys", DType::kF32, {g.batch, g.src, {c.units, -1}}));
}

void encode_stage(GraphBuilder& b, Seq2SeqConfig& c, Graph& g) {
  b.writer().begin_stage("encode");
  const int ids = b.input("source_ids", DType::kI32, {g.batch, g.src});
  const int mask = b.input("source_mask", DType::kI32, {g.batch, g.src});
  const int x = b.embedding("src_embedding", ids, b.param("src_embedding.weight", {c.src_vocab, c.embedding}), -1,
                            -1, -1, 1.0f);
  const int64_t width = c.dirs * c.hidden;
  int h_n = -1, c_n = -1;
  encoder_stack(b, c, g, x, mask, &h_n, &c_n);
  const GraphBuilder::Dim hd{c.decoder_hidden, -1};
  g.h = b.state("decoder.h", DType::kF32, {g.batch, hd});
  linear(b, "bridge_h", h_n, c.decoder_hidden, width, true, fb::Activation_Tanh, g.h);
  if (c.cell == fb::RecurrentCell_Lstm) {
    g.c = b.state("decoder.c", DType::kF32, {g.batch, hd});
    linear(b, "bridge_c", c_n, c.decoder_hidden, width, true, fb::Activation_Tanh, g.c);
  }
  if (c.attention == "bahdanau" || c.attention == "luong_concat") additive_keys(b, c, g, width);
  g.mask = b.copy("source_mask.keep", mask, b.state("source_mask.state", DType::kI32, {g.batch, g.src}));
}

// One decoder step: the recurrent cell on `input`, updating the decoder states.
int decoder_step(GraphBuilder& b, const Seq2SeqConfig& c, const Graph& g, int input, int64_t in) {
  const int64_t gsize = gates(c) * c.decoder_hidden;
  const int w_ih = b.param("decoder.weight_ih_l0", {gsize, in});
  const int w_hh = b.param("decoder.weight_hh_l0", {gsize, c.decoder_hidden});
  const int b_ih = b.optional_param("decoder.bias_ih_l0", {gsize});
  const int b_hh = b.optional_param("decoder.bias_hh_l0", {gsize});
  if (!b.status().ok()) return -1;
  const int s = b.activation("decoder.s", {g.batch, {c.decoder_hidden, -1}});
  b.writer().add_recurrent_step("decoder", c.cell, static_cast<int>(c.decoder_hidden), input, w_ih, w_hh, b_ih, b_hh,
                                g.h, g.c, s);
  return s;
}

// Context [batch, width] and the alignment output of one step's attention with query q.
int step_attention(GraphBuilder& b, const Seq2SeqConfig& c, const Graph& g, int query, int64_t query_width) {
  const int64_t width = c.dirs * c.hidden;
  const int context = b.activation("attention.context", {g.batch, {width, -1}});
  const int weights = b.output("attention", {g.batch, g.src});
  if (!b.status().ok()) return -1;
  if (c.attention == "bahdanau" || c.attention == "luong_concat") {
    const int w = b.param("attention.query.weight", {c.units, query_width});
    b.writer().add_score_attention("attention", fb::ScoreKind_Additive, 1.0f, query, g.keys, g.memory, g.mask, w,
                                   b.optional_param("attention.query.bias", {c.units}), energy_vector(b, c.units),
                                   context, weights);
  } else if (c.attention == "luong_general") {
    const int w = b.param("attention.W.weight", {query_width, width});
    b.writer().add_score_attention("attention", fb::ScoreKind_General, 1.0f, query, g.memory, g.memory, g.mask, w,
                                   -1, -1, context, weights);
  } else {
    b.writer().add_score_attention("attention", fb::ScoreKind_Dot, 1.0f, query, g.memory, g.memory, g.mask, -1, -1,
                                   -1, context, weights);
  }
  return context;
}

void decode_stage(GraphBuilder& b, const Seq2SeqConfig& c, const Graph& g) {
  b.writer().begin_stage("decode");
  const int prev = b.input("prev_ids", DType::kI32, {g.batch});
  const int e = b.embedding("tgt_embedding", prev, b.param("tgt_embedding.weight", {c.tgt_vocab, c.embedding}), -1,
                            -1, -1, 1.0f);
  const int64_t width = c.dirs * c.hidden;
  const GraphBuilder::Dim vocab{c.tgt_vocab, -1};
  if (c.attention == "bahdanau") {
    const int context = step_attention(b, c, g, g.h, c.decoder_hidden);  // s_{t-1}
    const int s = decoder_step(b, c, g, b.concat("decoder.input", {e, context}), c.embedding + width);
    linear(b, "output", b.concat("output.input", {s, context}), c.tgt_vocab, c.decoder_hidden + width, true,
           fb::Activation_None, b.output("logits", {g.batch, vocab}));
    return;
  }
  const int s = decoder_step(b, c, g, e, c.embedding);
  const int context = step_attention(b, c, g, s, c.decoder_hidden);  // s_t
  const int combined = linear(b, "combine", b.concat("combine.input", {context, s}), c.decoder_hidden,
                              width + c.decoder_hidden, false, fb::Activation_Tanh);
  linear(b, "output", combined, c.tgt_vocab, c.decoder_hidden, true, fb::Activation_None,
         b.output("logits", {g.batch, vocab}));
}

}  // namespace

Status build_rnn_seq2seq(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(Seq2SeqConfig c, named_config(options, read_config(config)));
  Graph g;
  g.batch = {options.max_batch, b.symbol("batch", options.max_batch)};
  const int64_t max_src = options.max_seq > 0 ? options.max_seq : c.max_src;
  g.src = {max_src, b.symbol("src_seq", max_src)};
  encode_stage(b, c, g);
  decode_stage(b, c, g);
  b.writer().add_hyperparameter("bos_id", std::to_string(c.bos_id));
  b.writer().add_hyperparameter("eos_id", std::to_string(c.eos_id));
  return b.status();
}

}  // namespace convert
}  // namespace focal
