// An RNN sequence-to-sequence model with attention: an nn.LSTM/nn.GRU encoder (1 to n
// layers, bidirectional or not) and a decoder of 1 to n layers of the same cell, in our
// naming or as tutorials write Encoder/Decoder modules (rnn_seq2seq_names.cpp; the forms
// in converter/README.md). Each decoder layer starts from the encoder's final state of
// the same layer (a 1-layer decoder: of the last), through the bridge
// tanh(Linear([h_fwd; h_bwd])) when there is one. One step, for decoder_input_ids:
//   context fed (Bahdanau, the tutorial)  context from s_{t-1}; s_t = decoder([emb; context])
//   Luong                                 s_t = decoder(emb); context from s_t
//   Luong with input feeding              s_t = decoder([emb; h~_{t-1}]), h~ = tanh(combine(..))
//   logits = output(s_t), output([s_t; context]) or output(tanh(combine([c; s_t] or [s_t; c])))
// An LSTM decoder either carries its cell state or starts every step from zeros.
// Two stages. encode: inputs input_ids and attention_mask [batch, src_seq] (transformers'
// encoder-decoder names: PyTorch names no tensors, and the tutorial's Encoder takes
// only src; the mask is optional, unset every position is a token, as the tutorial's
// encoder reads them all); the encoder, the decoder's initial states, the memory and its
// projected keys kept as states. decode (once per token): input decoder_input_ids
// [batch]; outputs logits [batch, tgt_vocab] and attention [batch, src_seq].
// focal::translate() drives it (greedy or beam search), and takes files written before
// these names (source_ids, source_mask, prev_ids) too.
#include "presets/rnn_seq2seq.h"

namespace focal {
namespace convert {
namespace {

// A recurrent module's layer-k weights: w_ih, w_hh (and biases when present), in `in`.
struct LayerWeights {
  int w_ih = -1, w_hh = -1, b_ih = -1, b_hh = -1;
};
LayerWeights layer_weights(GraphBuilder& b, const std::string& module, const std::string& suffix, int64_t gates,
                           int64_t hidden, int64_t in) {
  const int64_t g = gates * hidden;
  LayerWeights w;
  w.w_ih = b.param(module + ".weight_ih" + suffix, {g, in});
  w.w_hh = b.param(module + ".weight_hh" + suffix, {g, hidden});
  w.b_ih = b.optional_param(module + ".bias_ih" + suffix, {g});
  w.b_hh = b.optional_param(module + ".bias_hh" + suffix, {g});
  return w;
}

// Encoder layer k over x into y, with its final states h_n and c_n (c_n -1 for a GRU).
void encoder_layer(GraphBuilder& b, const Seq2SeqModel& m, int64_t k, int x, int mask, int64_t in, int y, int h_n,
                   int c_n) {
  const std::string l = "_l" + std::to_string(k);
  ModelWriter::RecurrentSpec s;
  s.x = x;
  s.mask = mask;
  s.cell = m.cell;
  s.hidden = static_cast<int>(m.hidden);
  const LayerWeights f = layer_weights(b, m.names.encoder, l, m.gates(), m.hidden, in);
  s.w_ih = f.w_ih, s.w_hh = f.w_hh, s.b_ih = f.b_ih, s.b_hh = f.b_hh;
  if (m.dirs == 2) {
    const LayerWeights r = layer_weights(b, m.names.encoder, l + "_reverse", m.gates(), m.hidden, in);
    s.w_ih_r = r.w_ih, s.w_hh_r = r.w_hh, s.b_ih_r = r.b_ih, s.b_hh_r = r.b_hh;
  }
  if (!b.status().ok()) return;
  std::vector<int32_t> outputs = {y, h_n};
  if (c_n >= 0) outputs.push_back(c_n);
  b.writer().add_recurrent("encoder.l" + std::to_string(k), s, outputs);
}

int linear(GraphBuilder& b, const std::string& name, int x, int64_t out, int64_t in,
           fb::Activation act = fb::Activation_None, int y = -1) {
  const int w = b.param(name + ".weight", {out, in});
  return b.dense(name, x, w, b.optional_param(name + ".bias", {out}), act, y);
}

struct FinalStates {
  std::vector<int> h, c;  // per encoder layer, [B, dirs*H] (c: LSTM)
};

// The encoder layers over x into g.memory; their final states.
FinalStates encoder_stack(GraphBuilder& b, const Seq2SeqModel& m, Seq2SeqGraph& g, int x, int mask) {
  const GraphBuilder::Dim width{m.memory_width(), -1};
  const bool lstm = m.cell == fb::RecurrentCell_Lstm;
  int64_t in = m.src_embedding;
  FinalStates final_states;
  g.memory = b.state("memory", DType::kF32, {g.batch, g.src, width});
  for (int64_t k = 0; k < m.encoder_layers; ++k) {
    const std::string name = "encoder.l" + std::to_string(k);
    const int y = k + 1 == m.encoder_layers ? g.memory : b.activation(name + ".y", {g.batch, g.src, width});
    final_states.h.push_back(b.activation(name + ".h_n", {g.batch, width}));
    final_states.c.push_back(lstm ? b.activation(name + ".c_n", {g.batch, width}) : -1);
    encoder_layer(b, m, k, x, mask, in, y, final_states.h.back(), final_states.c.back());
    x = y;
    in = m.memory_width();
  }
  return final_states;
}

// Decoder layer l's state from encoder state `from`: through `bridge`, or copied.
void start_state(GraphBuilder& b, const Seq2SeqModel& m, const std::string& bridge, int from, int state,
                 const std::string& name) {
  if (bridge.empty()) {
    b.copy(name + ".start", from, state);
  } else {
    linear(b, bridge, from, m.decoder_hidden, m.memory_width(), fb::Activation_Tanh, state);
  }
}

// The decoder's states [B, Hd] per layer, started from the encoder's final states.
void decoder_start(GraphBuilder& b, const Seq2SeqModel& m, Seq2SeqGraph& g, const FinalStates& enc) {
  const GraphBuilder::Dim hd{m.decoder_hidden, -1};
  for (int64_t l = 0; l < m.decoder_layers; ++l) {
    const size_t from = static_cast<size_t>(m.decoder_layers == 1 ? m.encoder_layers - 1 : l);
    const std::string suffix = l == 0 ? "" : ".l" + std::to_string(l);
    g.h.push_back(b.state("decoder.h" + suffix, DType::kF32, {g.batch, hd}));
    start_state(b, m, m.names.bridge_h, enc.h[from], g.h.back(), "decoder.h" + suffix);
    if (m.cell != fb::RecurrentCell_Lstm) continue;
    g.c.push_back(b.state("decoder.c" + suffix, DType::kF32, {g.batch, hd}));
    if (m.reset_cell) continue;  // zeroed before every step
    if (m.names.bridge_c.empty() && !m.names.bridge_h.empty()) {  // an h bridge only: the cell from zeros
      zeros_from(b, "decoder.c" + suffix + ".zero", g.h.back(), m.decoder_hidden, m.decoder_hidden, g.c.back());
    } else {
      start_state(b, m, m.names.bridge_c, enc.c[from], g.c.back(), "decoder.c" + suffix);
    }
  }
}

void encode_stage(GraphBuilder& b, const Seq2SeqModel& m, Seq2SeqGraph& g) {
  b.writer().begin_stage("encode");
  const int ids = b.input("input_ids", DType::kI32, {g.batch, g.src});
  const int mask = b.optional_input("attention_mask", DType::kI32, {g.batch, g.src}, 1);
  const int table = b.param(m.names.src_embedding + ".weight", {m.src_vocab, m.src_embedding});
  const int x = b.embedding("src_embedding", ids, table, -1, -1, -1, 1.0f);
  const FinalStates enc = encoder_stack(b, m, g, x, mask);
  if (!b.status().ok()) return;
  decoder_start(b, m, g, enc);
  attention_keys(b, m, g);
  if (m.input_feeding) {  // no attentional vector before the first step
    g.feed = b.state("decoder.feed", DType::kF32, {g.batch, {m.decoder_hidden, -1}});
    zeros_from(b, "decoder.feed.zero", g.h[0], m.decoder_hidden, m.decoder_hidden, g.feed);
  }
  g.mask = b.copy("attention_mask.keep", mask, b.state("attention_mask.state", DType::kI32, {g.batch, g.src}));
}

// The decoder layers on `input` (in wide), each updating its states; the top layer's new h.
int decoder_steps(GraphBuilder& b, const Seq2SeqModel& m, const Seq2SeqGraph& g, int input, int64_t in) {
  for (int64_t l = 0; l < m.decoder_layers; ++l) {
    const size_t i = static_cast<size_t>(l);
    const std::string name = l == 0 ? "decoder" : "decoder.l" + std::to_string(l);
    const LayerWeights w = layer_weights(b, m.names.decoder, "_l" + std::to_string(l), m.gates(), m.decoder_hidden, in);
    const int c = g.c.empty() ? -1 : g.c[i];
    const int s = b.activation(name + ".s", {g.batch, {m.decoder_hidden, -1}});
    if (!b.status().ok()) return -1;
    // A reset cell (the tutorial's (hidden, zeros) each step) is zeroed by the step op
    // itself (RecurrentStepOptions.reset_cell), not by a Dense of zeros run every step.
    b.writer().add_recurrent_step(name, m.cell, static_cast<int>(m.decoder_hidden), input, w.w_ih, w.w_hh, w.b_ih,
                                  w.b_hh, g.h[i], c, s, m.reset_cell && c >= 0);
    input = s;
    in = m.decoder_hidden;
  }
  return input;
}

// logits from the top layer's s_t and this step's context.
void logits(GraphBuilder& b, const Seq2SeqModel& m, const Seq2SeqGraph& g, int s, int context) {
  const int64_t hd = m.decoder_hidden, dk = m.memory_width();
  const int out = b.output("logits", {g.batch, {m.tgt_vocab, -1}});
  const std::string& output = m.names.output;
  if (!m.names.combine.empty()) {
    const std::vector<int32_t> parts = m.context_first ? std::vector<int32_t>{context, s} : std::vector<int32_t>{s, context};
    const int combined = linear(b, m.names.combine, b.concat("combine.input", parts), hd, dk + hd,
                                fb::Activation_Tanh, g.feed);  // input feeding: kept for the next step
    linear(b, output, combined, m.tgt_vocab, hd, fb::Activation_None, out);
  } else if (m.output_with_context) {
    linear(b, output, b.concat("output.input", {s, context}), m.tgt_vocab, hd + dk, fb::Activation_None, out);
  } else {
    linear(b, output, s, m.tgt_vocab, hd, fb::Activation_None, out);
  }
}

void decode_stage(GraphBuilder& b, const Seq2SeqModel& m, const Seq2SeqGraph& g) {
  b.writer().begin_stage("decode");
  const int prev = b.input("decoder_input_ids", DType::kI32, {g.batch});
  const int table = b.param(m.names.tgt_embedding + ".weight", {m.tgt_vocab, m.tgt_embedding});
  const int e = b.embedding("tgt_embedding", prev, table, -1, -1, -1, 1.0f);
  if (!b.status().ok()) return;
  if (m.feed_context) {
    const int context = step_attention(b, m, g, g.h.back());  // s_{t-1}
    const int input = b.concat("decoder.input", {e, context});
    logits(b, m, g, decoder_steps(b, m, g, input, m.tgt_embedding + m.memory_width()), context);
    return;
  }
  const int input = m.input_feeding ? b.concat("decoder.input", {e, g.feed}) : e;
  const int64_t in = m.tgt_embedding + (m.input_feeding ? m.decoder_hidden : 0);
  const int s = decoder_steps(b, m, g, input, in);
  logits(b, m, g, s, step_attention(b, m, g, s));  // s_t
}

}  // namespace

Status build_rnn_seq2seq(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const Seq2SeqModel m, describe_seq2seq(config, b.weights()));
  Seq2SeqGraph g;
  g.batch = {options.max_batch, b.symbol("batch", options.max_batch)};
  const int64_t max_src = options.max_seq > 0 ? options.max_seq : m.max_src;
  g.src = {max_src, b.symbol("src_seq", max_src)};
  encode_stage(b, m, g);
  decode_stage(b, m, g);
  b.writer().add_hyperparameter("bos_id", std::to_string(m.bos_id));
  b.writer().add_hyperparameter("eos_id", std::to_string(m.eos_id));
  return b.status();
}

}  // namespace convert
}  // namespace focal
