// rnn-classifier: the attention-pooled RNN classifier as PyTorch users save it, found by
// what the tensors are rather than fixed names, under any wrapper prefix (`module.`,
// `model.`, ...):
//   an nn.Embedding    a 2-D tensor under a module whose name contains "emb";
//   an nn.LSTM/nn.GRU  `<rnn>.weight_ih_l{k}`, `weight_hh_l{k}` (`_reverse`: bidirectional),
//                      optional biases; the cell from the module's name (lstm, gru), else
//                      from the gate count (4H or 3H rows); layers, hidden from shapes;
//   attention pooling  under a module whose name starts with "att" (attention, attn):
//                      W [A, width] (a Linear(width, A), its bias optional) and v with A
//                      elements ([1, A] or [A]); a bias of v cancels in the softmax;
//   the head           a Linear named classifier, fc, head, out, output or linear
//                      [C, width]; C == 1: sigmoid, else softmax.
// Only max_len comes from the config (default 256); the graph is
// rnn_classifier_graph.h's.
#include <algorithm>
#include <cctype>

#include "presets/rnn_classifier_graph.h"

namespace focal {
namespace convert {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// The nn.LSTM / nn.GRU: the module prefix of its unique `weight_ih_l0` ("model.lstm.").
Result<std::string> find_recurrent_module(const std::vector<std::string>& names) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    if (ends_with(name, "weight_ih_l0")) found.push_back(name.substr(0, name.size() - 12));
  }
  if (found.size() == 1) return found[0];
  if (found.empty()) {
    return refused("rnn-classifier: no nn.LSTM or nn.GRU in the checkpoint (tensors <rnn>.weight_ih_l0, "
                   "weight_hh_l0, ...); it holds " + listed(names));
  }
  return refused("rnn-classifier: several recurrent modules (" + listed(found) +
                 "); the classifier has one (stacked layers are its _l1, _l2, ...)");
}

fb::RecurrentCell cell_of(const std::string& module, const Matrix& w_hh) {
  const std::string name = lower(module);
  if (name.find("gru") != std::string::npos) return fb::RecurrentCell_Gru;
  if (name.find("lstm") != std::string::npos) return fb::RecurrentCell_Lstm;
  const bool three_gates = w_hh.shape.size() == 2 && w_hh.shape[0] == 3 * w_hh.shape[1];
  return three_gates ? fb::RecurrentCell_Gru : fb::RecurrentCell_Lstm;
}

Status take_recurrent(GraphBuilder& b, const std::string& module, ClassifierWeights* w) {
  for (int layer = 0; b.weights().has(module + "weight_ih_l" + std::to_string(layer)); ++layer) {
    std::vector<RecurrentDirection> dirs;
    for (const std::string suffix : {"", "_reverse"}) {
      const std::string k = "_l" + std::to_string(layer) + suffix;
      if (!suffix.empty() && !b.weights().has(module + "weight_ih" + k)) break;
      RecurrentDirection d;
      d.w_ih = take(b, module + "weight_ih" + k);
      d.w_hh = take(b, module + "weight_hh" + k);
      d.b_ih = take_if_present(b, module + "bias_ih" + k);
      d.b_hh = take_if_present(b, module + "bias_hh" + k);
      dirs.push_back(std::move(d));
    }
    w->layers.push_back(std::move(dirs));
  }
  FOCAL_RETURN_IF_ERROR(b.status());
  const Matrix& w_hh = w->layers[0][0].w_hh;
  if (w_hh.shape.size() != 2 || w_hh.shape[1] == 0) {
    return refused("rnn-classifier: " + module + "weight_hh_l0 has shape " + dims_text(w_hh.shape) + ", expected [G*H, H]");
  }
  w->hidden = w_hh.shape[1];
  w->cell = cell_of(module, w_hh);
  return Status();
}

bool has_component(const std::string& name, bool (*test)(const std::string&)) {
  const std::vector<std::string> parts = split_on(name, '.');
  return std::any_of(parts.begin(), parts.end() - 1, test);
}

bool is_embedding_part(const std::string& part) { return lower(part).find("emb") != std::string::npos; }
bool is_attention_part(const std::string& part) { return lower(part).rfind("att", 0) == 0; }

bool is_head_part(const std::string& part) {
  for (const char* head : {"classifier", "fc", "head", "out", "output", "linear"}) {
    if (part == head) return true;
  }
  return false;
}

// The one candidate, or an error naming what was looked for and the candidates found.
Result<std::string> only(const std::vector<std::string>& found, const std::string& what,
                         const std::vector<std::string>& names) {
  if (found.size() == 1) return found[0];
  if (found.empty()) return refused("rnn-classifier: no " + what + "; tensors not placed: " + listed(names));
  return refused("rnn-classifier: several candidates for " + what + ": " + listed(found, 6) +
                 " (keep one, or convert with --spec)");
}

Result<std::string> find_embedding(const std::vector<std::string>& names) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    if (has_component(name, is_embedding_part) && ends_with(name, ".weight")) found.push_back(name);
  }
  return only(found, "embedding (an nn.Embedding under a module named *emb*: <...>.embedding.weight)", names);
}

// The head: a Linear whose module's last name is one of is_head_part's, outside the
// attention module; when there is none, the error lists the tensors not yet placed.
Result<std::string> find_head(const std::vector<std::string>& names, const std::vector<std::string>& unplaced) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    const std::vector<std::string> parts = split_on(name, '.');
    if (parts.size() < 2 || parts.back() != "weight" || !is_head_part(parts[parts.size() - 2])) continue;
    if (!has_component(name, is_attention_part)) found.push_back(name);
  }
  return only(found, "classifier head (a Linear named classifier, fc, head, out, output or linear)", unplaced);
}

std::string module_of(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

struct AttentionNames {
  std::string w, b, v, v_bias;
};

// Inside the attention module(s): W is the 2-D tensor reading the pooled width with more
// than one row; v has A elements ([1, A] or [A]) and is not W's bias.
Result<AttentionNames> find_attention(GraphBuilder& b, const std::vector<std::string>& names, int64_t width) {
  std::vector<std::string> weights, inside;
  for (const std::string& name : names) {
    if (!has_component(name, is_attention_part)) continue;
    inside.push_back(name);
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const std::string& name : inside) {
    Result<Matrix> m = b.weights().get_any(name);  // small: the attention's own tensors
    if (!m.ok()) return m.status();
    shapes.push_back(m->shape);
    if (m->shape.size() == 2 && m->shape[1] == width && m->shape[0] > 1) weights.push_back(name);
  }
  AttentionNames found;
  FOCAL_ASSIGN_OR_RETURN(found.w, only(weights, "attention W (a Linear(" + std::to_string(width) +
                                                    ", A) under a module named att*: attention.W, attn.W, attention.attn)",
                                       inside.empty() ? names : inside));
  const int64_t units = element_count(shapes[size_t(std::find(inside.begin(), inside.end(), found.w) - inside.begin())]) / width;
  if (ends_with(found.w, ".weight") && b.weights().has(module_of(found.w) + ".bias")) found.b = module_of(found.w) + ".bias";
  std::vector<std::string> vs;
  for (size_t i = 0; i < inside.size(); ++i) {
    const bool vector_like = shapes[i].size() == 1 || (shapes[i].size() == 2 && shapes[i][0] == 1);
    if (inside[i] != found.w && inside[i] != found.b && vector_like && element_count(shapes[i]) == units) {
      vs.push_back(inside[i]);
    }
  }
  FOCAL_ASSIGN_OR_RETURN(found.v, only(vs, "attention v (" + std::to_string(units) + " elements: attention.v, a Linear(A, 1))", inside));
  if (ends_with(found.v, ".weight") && b.weights().has(module_of(found.v) + ".bias")) found.v_bias = module_of(found.v) + ".bias";
  return found;
}

Status check_config(const nlohmann::json& config, const ClassifierWeights& w, const PresetOptions& options) {
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "vocab_size", w.embedding.shape[0], options));
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "embedding", w.embedding.shape[1], options));
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "hidden", w.hidden, options));
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "attention_units", w.att_w.shape[0], options));
  return check_config_agrees(config, "num_classes", w.cls_w.shape[0], options);
}

}  // namespace

Status build_rnn_classifier(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq, classifier_max_seq(config, options));
  const std::vector<std::string> names = b.weights().names();
  FOCAL_ASSIGN_OR_RETURN(const std::string rnn, find_recurrent_module(names));
  ClassifierWeights w;
  FOCAL_RETURN_IF_ERROR(take_recurrent(b, rnn, &w));
  ClassifierNames n;
  n.recurrent = rnn + "weight_*";
  FOCAL_ASSIGN_OR_RETURN(n.embedding, find_embedding(names));
  w.embedding = take(b, n.embedding);
  if (w.embedding.shape.size() != 2) return refused("rnn-classifier: the embedding '" + n.embedding + "' has shape " + dims_text(w.embedding.shape) + ", expected [vocab, E]");
  FOCAL_ASSIGN_OR_RETURN(const AttentionNames attention, find_attention(b, names, w.width()));
  n.attention_w = attention.w;
  n.attention_b = attention.b;
  n.attention_v = attention.v;
  w.att_w = take(b, attention.w);
  if (!attention.b.empty()) w.att_b = as_vector(take(b, attention.b));
  w.att_v = as_vector(take(b, attention.v));
  if (!attention.v_bias.empty()) take(b, attention.v_bias);  // adds one constant to every score: cancels
  FOCAL_ASSIGN_OR_RETURN(n.classifier_w, find_head(names, b.weights().unused()));
  n.classifier_b = module_of(n.classifier_w) + ".bias";
  w.cls_w = take(b, n.classifier_w);
  w.cls_b = take_if_present(b, n.classifier_b);
  FOCAL_RETURN_IF_ERROR(b.status());
  if (w.cls_w.shape.size() != 2) return refused("rnn-classifier: the head '" + n.classifier_w + "' has shape " + dims_text(w.cls_w.shape) + ", expected [C, width]");
  FOCAL_RETURN_IF_ERROR(check_config(config, w, options));
  return build_classifier_graph(w, n, max_seq, options, b);
}

}  // namespace convert
}  // namespace focal
