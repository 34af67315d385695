// One decoder step's attention over the source memory h_j [B, S, Dk] for the decoder
// state s [B, Hd], as ScoreAttention ops (and the key projections the encode stage
// precomputes once per source):
//   kAdditive      v . tanh(Wq s + bq + Wk h_j + bk): Additive with keys = Wk h + bk.
//                  Ours: attention.query / attention.key / attention.energy (Wa / Ua / Va
//                  in PyTorch's translation tutorial); the module naming otherwise: one
//                  Linear(Hd + Dk, A) over [s; h_j] (split by columns, its bias as bq)
//                  with v
//   kConcatLinear  Linear([s; h_j]) -> 1 without tanh (PyTorch's seq2seq tutorial), and
//   kConcatTanh    the same under tanh: a Concat score with the Linear's weight [1, Hd + Dk]
//                  and bias [1] as stored, over the memory itself (no key projection)
//   kDot           s . h_j
//   kGeneral       s . W h_j with W [Hd, Dk] (nn.Linear(Dk, Hd).weight); the Linear's bias
//                  adds s . b to every score of a row, which the softmax removes exactly
#include "presets/rnn_seq2seq.h"

namespace focal {
namespace convert {
namespace {

// Columns [begin, begin + count) of a 2-D matrix.
Matrix columns(const Matrix& m, int64_t begin, int64_t count) {
  Matrix out{{m.shape[0], count}, {}};
  for (int64_t r = 0; r < m.shape[0]; ++r) {
    const auto row = m.values.begin() + r * m.shape[1] + begin;
    out.values.insert(out.values.end(), row, row + count);
  }
  return out;
}

Matrix as_vector(Matrix m) {
  m.shape = {static_cast<int64_t>(m.values.size())};
  return m;
}

Matrix filled(std::vector<int64_t> shape, float value) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return Matrix{std::move(shape), std::vector<float>(static_cast<size_t>(count), value)};
}

// The scoring Linear over [s; h] of the module naming: [units, Hd + Dk].
Matrix concat_weight(GraphBuilder& b, const Seq2SeqModel& m) {
  return b.fetch(m.names.attention + ".weight", {m.units, m.decoder_hidden + m.memory_width()});
}

// Wk [A, Dk] and bk [A] (empty when absent) of additive scoring.
void key_projection(GraphBuilder& b, const Seq2SeqModel& m, Matrix* w, Matrix* bias) {
  if (m.names.ours || m.names.attention_wa_ua) {
    const std::string key = m.names.ours ? std::string("attention.key") : m.names.attention + ".Ua";
    *w = b.fetch(key + ".weight", {m.units, m.memory_width()});
    if (b.weights().has(key + ".bias")) *bias = b.fetch(key + ".bias", {m.units});
    return;
  }
  const Matrix both = concat_weight(b, m);
  if (b.status().ok()) *w = columns(both, m.decoder_hidden, m.memory_width());
}

// Wq [A, Hd], bq [A] (empty when absent) and v [A] of additive scoring.
// Va's bias (Linear(A, 1)) adds the same number to every score of a row: read and dropped.
void query_projection(GraphBuilder& b, const Seq2SeqModel& m, Matrix* w, Matrix* bias, Matrix* v) {
  const bool split = m.names.ours || m.names.attention_wa_ua;
  const std::string name = m.names.ours ? "attention.query" : m.names.attention + (split ? ".Wa" : "");
  if (split) {
    *w = b.fetch(name + ".weight", {m.units, m.decoder_hidden});
    const std::string energy = m.names.ours ? "attention.energy" : m.names.attention + ".Va";
    *v = as_vector(b.fetch(energy + ".weight", {1, m.units}));
    if (b.weights().has(energy + ".bias")) b.fetch(energy + ".bias", {1});
  } else {
    const Matrix both = concat_weight(b, m);
    if (b.status().ok()) *w = columns(both, 0, m.decoder_hidden);
    *v = as_vector(b.fetch(m.names.attention_v, {m.units}));
  }
  if (b.weights().has(name + ".bias")) *bias = b.fetch(name + ".bias", {m.units});
}

int optional_constant(GraphBuilder& b, const std::string& name, const Matrix& m) {
  return m.shape.empty() ? -1 : b.constant(name, m);
}

}  // namespace

int zeros_from(GraphBuilder& b, const std::string& name, int x, int64_t in, int64_t width, int out) {
  return b.dense(name, x, b.constant(name + ".weight", filled({width, in}, 0.0f)),
                 b.constant(name + ".bias", filled({width}, 0.0f)), fb::Activation_None, out);
}

void attention_keys(GraphBuilder& b, const Seq2SeqModel& m, Seq2SeqGraph& g) {
  if (m.score != ScoreForm::kAdditive) return;
  Matrix w, bias;
  key_projection(b, m, &w, &bias);
  if (!b.status().ok()) return;
  const int keys = b.state("attention.keys", DType::kF32, {g.batch, g.src, {m.units, -1}});
  g.keys = b.dense("attention.key", g.memory, b.constant("attention.key.weight", w),
                   optional_constant(b, "attention.key.bias", bias), fb::Activation_None, keys);
}

int step_attention(GraphBuilder& b, const Seq2SeqModel& m, const Seq2SeqGraph& g, int query) {
  const int context = b.activation("attention.context", {g.batch, {m.memory_width(), -1}});
  const int weights = b.output("attention", {g.batch, g.src});
  if (!b.status().ok()) return -1;
  const int64_t hd = m.decoder_hidden, dk = m.memory_width();
  if (m.score == ScoreForm::kDot) {
    b.writer().add_score_attention("attention", fb::ScoreKind_Dot, 1.0f, query, g.memory, g.memory, g.mask, -1, -1,
                                   -1, context, weights);
  } else if (m.score == ScoreForm::kGeneral) {
    const int w = b.param(m.names.attention + ".weight", {hd, dk});
    if (b.weights().has(m.names.attention + ".bias")) b.fetch(m.names.attention + ".bias", {hd});  // see above
    if (!b.status().ok()) return -1;
    b.writer().add_score_attention("attention", fb::ScoreKind_General, 1.0f, query, g.memory, g.memory, g.mask, w,
                                   -1, -1, context, weights);
  } else if (m.score == ScoreForm::kConcatLinear || m.score == ScoreForm::kConcatTanh) {
    const std::string& linear = m.names.attention;
    const int w = b.param(linear + ".weight", {1, hd + dk});
    const int bias = b.weights().has(linear + ".bias") ? b.param(linear + ".bias", {1}) : -1;
    if (!b.status().ok()) return -1;
    const fb::Activation act = m.score == ScoreForm::kConcatTanh ? fb::Activation_Tanh : fb::Activation_None;
    b.writer().add_score_attention("attention", fb::ScoreKind_Concat, 1.0f, query, g.memory, g.memory, g.mask, w,
                                   bias, -1, context, weights, act);
  } else {
    Matrix w, bias, v;
    query_projection(b, m, &w, &bias, &v);
    if (!b.status().ok()) return -1;
    const int wq = b.constant("attention.query.weight", w), bq = optional_constant(b, "attention.query.bias", bias);
    const int energy = b.constant("attention.energy", v);
    if (!b.status().ok()) return -1;
    b.writer().add_score_attention("attention", fb::ScoreKind_Additive, 1.0f, query, g.keys, g.memory, g.mask, wq,
                                   bq, energy, context, weights);
  }
  return context;
}

}  // namespace convert
}  // namespace focal
