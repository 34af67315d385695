// The RNN sequence-to-sequence preset's own interface: what it reads from a checkpoint
// (rnn_seq2seq_names.cpp: which naming, under which prefix; rnn_seq2seq_config.cpp: the
// sizes and forms the tensors determine, the config for the rest), the attention forms
// (rnn_seq2seq_attention.cpp) and the graph (rnn_seq2seq.cpp).
#pragma once

#include <string>

#include "presets/preset.h"

namespace focal {
namespace convert {

// Module names in the checkpoint (a tensor is name + ".weight" etc.); "" when absent.
struct Seq2SeqNames {
  bool ours = true;                  // src_embedding / encoder / bridge_h / ... (converter/README.md)
  std::string src_embedding, tgt_embedding;  // nn.Embedding
  std::string encoder, decoder;      // nn.LSTM / nn.GRU
  std::string bridge_h, bridge_c;    // nn.Linear(dirs * H, Hd), applied with tanh
  std::string attention;             // the scoring nn.Linear ("" for dot)
  std::string attention_v;           // a full parameter name: v of tanh-concat scoring
  bool attention_wa_ua = false;      // attention.Wa (query), .Ua (key), .Va (v): Bahdanau's names
  std::string combine, output;       // nn.Linear
};

// How one decoder step scores the source memory h_j with the decoder state s.
enum class ScoreForm {
  kAdditive,      // v . tanh(Wq s + Wk h_j + b): Bahdanau, Luong concat (Linear(Hd + Dk, A) and v)
  kConcatLinear,  // Linear([s; h_j]) -> 1 without tanh: w . [s; h_j] + b
  kConcatTanh,    // tanh(Linear([s; h_j]) -> 1): tanh(w . [s; h_j] + b)
  kDot,           // s . h_j
  kGeneral,       // s . W h_j (a bias on W h_j adds s . b to every score of a row: softmax drops it)
};

struct Seq2SeqModel {
  Seq2SeqNames names;
  fb::RecurrentCell cell = fb::RecurrentCell_Lstm;
  int64_t hidden = 0, decoder_hidden = 0, src_embedding = 0, tgt_embedding = 0;
  int64_t encoder_layers = 1, decoder_layers = 1, dirs = 1, src_vocab = 0, tgt_vocab = 0;
  int64_t max_src = 64, bos_id = 1, eos_id = 2;
  ScoreForm score = ScoreForm::kAdditive;
  int64_t units = 0;            // kAdditive: A
  bool feed_context = true;     // score with s_{t-1}, decoder input [embedded; context] (Bahdanau)
                                // rather than score with s_t after the step (Luong)
  bool reset_cell = false;      // LSTM decoder started each step from a zero cell state
  bool output_with_context = false;  // logits = output([s_t; context]) rather than output(s_t)
  bool context_first = true;    // Luong combine([context; s_t]) rather than combine([s_t; context])
  bool input_feeding = false;   // Luong: decoder input [embedded; previous tanh(combine(...))]
  int64_t gates() const { return cell == fb::RecurrentCell_Lstm ? 4 : 3; }
  int64_t memory_width() const { return dirs * hidden; }  // Dk
};

// Which naming the checkpoint uses, with WeightSource's prefix set to what precedes it
// (`module.`, `model.`, a wrapper attribute); ours when nothing is found (random weights).
Result<Seq2SeqNames> find_seq2seq_names(WeightSource& weights);
// Every size and form, from the tensors where they tell, else from the config.
Result<Seq2SeqModel> describe_seq2seq(const nlohmann::json& config, WeightSource& weights);

// The graph's shared tensors (dims as GraphBuilder's).
struct Seq2SeqGraph {
  GraphBuilder::Dim batch{1, -1}, src{1, -1};
  int memory = -1, keys = -1, mask = -1;
  int feed = -1;          // input feeding: the previous attentional vector [B, Hd] (a state)
  std::vector<int> h, c;  // per decoder layer: state tensors [B, Hd] (c: LSTM)
};
// Encode stage: whatever the scoring precomputes once per source from g.memory (g.keys).
void attention_keys(GraphBuilder& b, const Seq2SeqModel& m, Seq2SeqGraph& g);
// Decode stage: the context [B, Dk] of one step for `query` [B, Hd]; writes the weights output.
int step_attention(GraphBuilder& b, const Seq2SeqModel& m, const Seq2SeqGraph& g, int query);
// A [B, width] tensor of exact zeros from x [B, in] (a Dense with zero weights and bias).
int zeros_from(GraphBuilder& b, const std::string& name, int x, int64_t in, int64_t width, int out);

}  // namespace convert
}  // namespace focal
