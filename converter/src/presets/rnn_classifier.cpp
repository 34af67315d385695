// The attention-pooled RNN classifier (the Keras IMDB-style model): embedding, a (bi)LSTM
// or GRU, attention pooling (score_s = v . tanh(W h_s + b) over the valid positions,
// pooled = sum_s a_s h_s), a classifier with a sigmoid (C == 1) or a softmax. Inputs
// input_ids, attention_mask [batch, seq]; outputs logits and probabilities [batch, C] and
// the pooling weights, attention [batch, seq]. Two namings:
//   rnn-classifier    PyTorch modules: `embedding`, `lstm` (or `gru`; `_reverse` weights
//                     make it bidirectional), `attention.W` (Linear(dirs*H, A)),
//                     `attention.v` (Linear(A, 1, bias=False)), `classifier`.
//   keras-classifier  a Keras .h5 (save_weights or save): an Embedding
//                     (`.../embeddings:0`), a Bidirectional(LSTM) (`.../forward_*/.../kernel:0`,
//                     `recurrent_kernel:0`, `bias:0`, and `backward_*`; Keras stores
//                     [in, 4H] with gates i, f, c, o and one bias), an attention layer
//                     named `attention` with weights `W:0` [2H, A], `b:0` [A] and `v:0`
//                     (or `u:0`) [A] or [A, 1], and a Dense (`dense.../kernel:0` [2H, C],
//                     `bias:0`).
#include "presets/preset.h"

namespace focal {
namespace convert {
namespace {

struct Direction {
  Matrix w_ih, w_hh, b_ih, b_hh;  // PyTorch layout: [G*H, in], [G*H, H], [G*H]
};

struct ClassifierWeights {
  fb::RecurrentCell cell = fb::RecurrentCell_Lstm;
  int64_t hidden = 0;
  Matrix embedding;            // [V, E]
  std::vector<Direction> dirs;  // forward, then backward
  Matrix att_w, att_b, att_v;  // [A, dirs*H], [A] (or empty), [A]
  Matrix cls_w, cls_b;         // [C, dirs*H], [C] (or empty)
};

int vector_constant(GraphBuilder& b, const std::string& name, const Matrix& m) {
  return m.shape.empty() ? -1 : b.constant(name, m);
}

// The (bi)directional recurrent layer over x: its states [B, S, dirs * hidden].
int recurrent_states(GraphBuilder& b, const ClassifierWeights& w, int x, int mask, GraphBuilder::Dim B,
                     GraphBuilder::Dim S) {
  ModelWriter::RecurrentSpec s;
  s.x = x;
  s.mask = mask;
  s.cell = w.cell;
  s.hidden = static_cast<int>(w.hidden);
  int* slots[2][4] = {{&s.w_ih, &s.w_hh, &s.b_ih, &s.b_hh}, {&s.w_ih_r, &s.w_hh_r, &s.b_ih_r, &s.b_hh_r}};
  for (size_t d = 0; d < w.dirs.size() && d < 2; ++d) {
    const std::string name = d == 0 ? "rnn.forward" : "rnn.backward";
    *slots[d][0] = b.constant(name + ".w_ih", w.dirs[d].w_ih);
    *slots[d][1] = b.constant(name + ".w_hh", w.dirs[d].w_hh);
    *slots[d][2] = vector_constant(b, name + ".b_ih", w.dirs[d].b_ih);
    *slots[d][3] = vector_constant(b, name + ".b_hh", w.dirs[d].b_hh);
  }
  const int states = b.activation("rnn", {B, S, {int64_t(w.dirs.size()) * w.hidden, -1}});
  if (b.status().ok()) b.writer().add_recurrent("rnn", s, {states});
  return states;
}

// logits = classifier(pooled), and probabilities: their sigmoid (one class) or softmax.
void classifier_head(GraphBuilder& b, const ClassifierWeights& w, int pooled, GraphBuilder::Dim B) {
  const int64_t classes = w.cls_w.shape[0];
  const GraphBuilder::Dim C{classes, -1};
  const int cls_b = vector_constant(b, "classifier.bias", w.cls_b);
  const int logits = b.dense("classifier", pooled, b.constant("classifier.weight", w.cls_w), cls_b,
                             fb::Activation_None, b.output("logits", {B, C}));
  const int probabilities = b.output("probabilities", {B, C});
  if (classes == 1) {
    // A sigmoid head: the classifier's (tiny) product again, with the activation fused.
    b.dense("classifier.sigmoid", pooled, b.constant("classifier.weight.sigmoid", w.cls_w),
            vector_constant(b, "classifier.bias.sigmoid", w.cls_b), fb::Activation_Sigmoid, probabilities);
  } else if (b.status().ok()) {
    b.writer().add_softmax("probabilities", logits, probabilities);
  }
}

Status build_graph(const ClassifierWeights& w, int64_t max_seq, const PresetOptions& options, GraphBuilder& b) {
  if (!b.status().ok()) return b.status();
  if (w.dirs.size() > 2) {
    return Status::error(StatusCode::kInvalidArgument, "%zu recurrent directions, at most 2", w.dirs.size());
  }
  const int64_t width = int64_t(w.dirs.size()) * w.hidden;
  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim S{max_seq, b.symbol("seq", max_seq)};
  const int ids = b.input("input_ids", DType::kI32, {B, S});
  const int mask = b.input("attention_mask", DType::kI32, {B, S});
  const int x = b.embedding("embedding", ids, b.constant("embedding", w.embedding), -1, -1, -1, 1.0f);
  const int states = recurrent_states(b, w, x, mask, B, S);
  const int pooled = b.activation("attention.pooled", {B, {width, -1}});
  const int weights = b.output("attention", {B, S});
  const int att_w = b.constant("attention.W", w.att_w);
  const int att_b = vector_constant(b, "attention.b", w.att_b);
  const int att_v = b.constant("attention.v", w.att_v);
  if (b.status().ok()) b.writer().add_attention_pool("attention", states, mask, att_w, att_b, att_v, pooled, weights);
  classifier_head(b, w, pooled, B);
  return b.status();
}

Matrix as_vector(Matrix m) {
  int64_t count = 1;
  for (int64_t d : m.shape) count *= d;
  m.shape = {count};
  return m;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// How many of the file's weight names contain `part`, and the first two (a status
// message holds 240 characters), for errors saying what a layer holds when it is not
// what the preset reads.
std::string names_containing(const std::vector<std::string>& names, const std::string& part) {
  std::string found;
  size_t count = 0;
  for (const std::string& name : names) {
    if (name.find(part) == std::string::npos) continue;
    if (++count <= 2) found += (found.empty() ? "" : ", ") + name;
  }
  if (count > 2) found += ", ...";
  return std::to_string(count) + (count > 0 ? ": " + found : "");
}

// Keras: the tensor whose name contains every part (and ends with the last), of `rank`
// dims (0: any), or an empty Matrix after an error naming what was looked for and what
// the file holds under the first part. Callers check the builder's status before using
// the shape.
Matrix keras_tensor(GraphBuilder& b, const std::vector<std::string>& names, std::vector<std::string> parts,
                    bool required = true, size_t rank = 0) {
  std::string wanted;
  for (const std::string& p : parts) wanted += (wanted.empty() ? "" : " ... ") + p;
  for (const std::string& name : names) {
    bool all = name.size() >= parts.back().size() &&
               name.compare(name.size() - parts.back().size(), parts.back().size(), parts.back()) == 0;
    for (size_t i = 0; all && i + 1 < parts.size(); ++i) all = name.find(parts[i]) != std::string::npos;
    if (!all) continue;
    Result<Matrix> m = b.weights().get_any(name);
    if (!m.ok()) {
      b.fail(m.status());
      return Matrix{};
    }
    if (rank != 0 && m->shape.size() != rank) {
      b.fail(Status::error(StatusCode::kInvalidArgument, "the Keras weight '%s' (matching '%s') has shape %s, expected %zu dims",
                           name.c_str(), wanted.c_str(), shape_text(m->shape).c_str(), rank));
      return Matrix{};
    }
    return std::move(m).value();
  }
  if (required) {
    b.fail(Status::error(StatusCode::kInvalidArgument,
                         "the Keras file has no weight matching '%s'; weights containing '%s': %s",
                         wanted.c_str(), parts.front().c_str(), names_containing(names, parts.front()).c_str()));
  }
  return Matrix{};
}

// A Keras kernel [in, out] as [out, in]; empty (with the error recorded) when missing.
Matrix keras_kernel(GraphBuilder& b, const std::vector<std::string>& names, std::vector<std::string> parts) {
  Matrix m = keras_tensor(b, names, std::move(parts), true, 2);
  return m.shape.size() == 2 ? transposed(m) : Matrix{};
}

// The attention and classifier weights read the pooled width (dirs * H) and agree on
// the attention units A, as build_graph assumes.
Status check_head_shapes(const ClassifierWeights& w) {
  const int64_t width = int64_t(w.dirs.size()) * w.hidden, units = w.att_w.shape[0];
  const auto mismatch = [](const char* what, const std::vector<int64_t>& shape, const std::string& expected) {
    return Status::error(StatusCode::kInvalidArgument, "the Keras %s has shape %s, expected %s", what,
                         shape_text(shape).c_str(), expected.c_str());
  };
  if (w.att_w.shape[1] != width) return mismatch("attention W:0 (as [A, 2H])", w.att_w.shape, "[A, " + std::to_string(width) + "]");
  if (!w.att_b.shape.empty() && w.att_b.shape[0] != units) return mismatch("attention b:0", w.att_b.shape, "[" + std::to_string(units) + "]");
  if (w.att_v.shape[0] != units) return mismatch("attention v:0 (u:0)", w.att_v.shape, "[" + std::to_string(units) + "]");
  if (w.cls_w.shape[1] != width) return mismatch("dense kernel:0 (as [C, 2H])", w.cls_w.shape, "[C, " + std::to_string(width) + "]");
  if (!w.cls_b.shape.empty() && w.cls_b.shape[0] != w.cls_w.shape[0]) {
    return mismatch("dense bias:0", w.cls_b.shape, "[" + std::to_string(w.cls_w.shape[0]) + "]");
  }
  return Status();
}

struct ClassifierConfig {
  int64_t hidden = 0, embedding = 0, units = 0, classes = 0, vocab = 0, max_seq = 0;
};

Result<ClassifierConfig> read_config(const nlohmann::json& config, const PresetOptions& options, bool keras) {
  ClassifierConfig c;
  FOCAL_ASSIGN_OR_RETURN(c.hidden, config_int(config, "hidden"));
  if (!keras) {  // a Keras file's tensors give these
    FOCAL_ASSIGN_OR_RETURN(c.embedding, config_int(config, "embedding"));
    FOCAL_ASSIGN_OR_RETURN(c.units, config_int(config, "attention_units"));
    FOCAL_ASSIGN_OR_RETURN(c.classes, config_int(config, "num_classes"));
    FOCAL_ASSIGN_OR_RETURN(c.vocab, config_int(config, "vocab_size"));
  }
  c.max_seq = options.max_seq;
  if (c.max_seq <= 0) {
    FOCAL_ASSIGN_OR_RETURN(c.max_seq, config_int(config, "max_len", 256));
  }
  return c;
}

}  // namespace

Status build_rnn_classifier(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const ClassifierConfig settings,
                         named_config(options, read_config(config, options, /*keras=*/false)));
  const int64_t embedding = settings.embedding, units = settings.units, classes = settings.classes;
  ClassifierWeights w;
  w.hidden = settings.hidden;
  const std::string rnn = b.weights().has("gru.weight_ih_l0") ? "gru" : "lstm";
  w.cell = rnn == "gru" ? fb::RecurrentCell_Gru : fb::RecurrentCell_Lstm;
  const int64_t g = (rnn == "gru" ? 3 : 4) * w.hidden;
  w.embedding = b.fetch("embedding.weight", {settings.vocab, embedding});
  for (const std::string& suffix : {std::string(), std::string("_reverse")}) {
    if (!suffix.empty() && !b.weights().has(rnn + ".weight_ih_l0" + suffix)) break;
    Direction d;
    d.w_ih = b.fetch(rnn + ".weight_ih_l0" + suffix, {g, embedding});
    d.w_hh = b.fetch(rnn + ".weight_hh_l0" + suffix, {g, w.hidden});
    if (b.weights().has(rnn + ".bias_ih_l0" + suffix)) d.b_ih = b.fetch(rnn + ".bias_ih_l0" + suffix, {g});
    if (b.weights().has(rnn + ".bias_hh_l0" + suffix)) d.b_hh = b.fetch(rnn + ".bias_hh_l0" + suffix, {g});
    w.dirs.push_back(std::move(d));
  }
  const int64_t width = int64_t(w.dirs.size()) * w.hidden;
  w.att_w = b.fetch("attention.W.weight", {units, width});
  if (b.weights().has("attention.W.bias")) w.att_b = b.fetch("attention.W.bias", {units});
  w.att_v = as_vector(b.fetch("attention.v.weight", {1, units}));
  w.cls_w = b.fetch("classifier.weight", {classes, width});
  if (b.weights().has("classifier.bias")) w.cls_b = b.fetch("classifier.bias", {classes});
  return build_graph(w, settings.max_seq, options, b);
}

Status build_keras_classifier(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const ClassifierConfig settings,
                         named_config(options, read_config(config, options, /*keras=*/true)));
  const std::vector<std::string> names = b.weights().names();
  ClassifierWeights w;
  w.hidden = settings.hidden;
  w.embedding = keras_tensor(b, names, {"embeddings:0"});
  for (const char* direction : {"forward", "backward"}) {
    Direction d;
    d.w_ih = keras_kernel(b, names, {direction, "/kernel:0"});
    d.w_hh = keras_kernel(b, names, {direction, "recurrent_kernel:0"});
    d.b_ih = as_vector(keras_tensor(b, names, {direction, "bias:0"}));  // Keras has one bias
    if (!b.status().ok()) return b.status();
    if (d.w_ih.shape[0] != 4 * w.hidden || d.w_hh.shape != std::vector<int64_t>{4 * w.hidden, w.hidden}) {
      return Status::error(StatusCode::kInvalidArgument,
                           "the %s LSTM's kernels do not match hidden %lld (4H = %lld outputs)", direction,
                           static_cast<long long>(w.hidden), 4 * static_cast<long long>(w.hidden));
    }
    w.dirs.push_back(std::move(d));
  }
  w.att_w = keras_kernel(b, names, {"attention", "/W:0"});
  if (!b.status().ok()) return b.status();  // the first missing weight is the clearest error
  w.att_b = as_vector(keras_tensor(b, names, {"attention", "/b:0"}, false));
  w.att_v = as_vector(keras_tensor(b, names, {"attention", "/v:0"}, false));
  if (w.att_v.shape.empty()) w.att_v = as_vector(keras_tensor(b, names, {"attention", "/u:0"}));
  w.cls_w = keras_kernel(b, names, {"dense", "/kernel:0"});
  w.cls_b = as_vector(keras_tensor(b, names, {"dense", "/bias:0"}, false));
  if (!b.status().ok()) return b.status();
  FOCAL_RETURN_IF_ERROR(check_head_shapes(w));
  return build_graph(w, settings.max_seq, options, b);
}

}  // namespace convert
}  // namespace focal
