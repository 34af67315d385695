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
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
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
    return refused(
        "rnn-classifier: no nn.LSTM or nn.GRU in the checkpoint (tensors <rnn>.weight_ih_l0, "
        "weight_hh_l0, ...); it holds " +
        listed(names));
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
    return refused("rnn-classifier: " + module + "weight_hh_l0 has shape " + dims_text(w_hh.shape) +
                   ", expected [G*H, H]");
  }
  w->hidden = w_hh.shape[1];
  w->cell = cell_of(module, w_hh);
  return Status();
}

bool has_component(const std::string& name, bool (*test)(const std::string&)) {
  const std::vector<std::string> parts = split_on(name, '.');
  return std::any_of(parts.begin(), parts.end() - 1, test);
}

bool is_embedding_part(const std::string& part) {
  return lower(part).find("emb") != std::string::npos;
}
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
  if (found.empty())
    return refused("rnn-classifier: no " + what + "; tensors not placed: " + listed(names));
  return refused("rnn-classifier: several candidates for " + what + ": " + listed(found, 6) +
                 " (keep one, or convert with --spec)");
}

Result<std::string> find_embedding(const std::vector<std::string>& names) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    if (has_component(name, is_embedding_part) && ends_with(name, ".weight")) found.push_back(name);
  }
  return only(found,
              "embedding (an nn.Embedding under a module named *emb*: <...>.embedding.weight)",
              names);
}

// The head: a Linear whose module's last name is one of is_head_part's, outside the
// attention module; when there is none, the error lists the tensors not yet placed.
Result<std::string> find_head(const std::vector<std::string>& names,
                              const std::vector<std::string>& unplaced) {
  std::vector<std::string> found;
  for (const std::string& name : names) {
    const std::vector<std::string> parts = split_on(name, '.');
    if (parts.size() < 2 || parts.back() != "weight" || !is_head_part(parts[parts.size() - 2]))
      continue;
    if (!has_component(name, is_attention_part)) found.push_back(name);
  }
  return only(found, "classifier head (a Linear named classifier, fc, head, out, output or linear)",
              unplaced);
}

std::string module_of(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

// The attention module(s)' tensors (names containing a component att*) and their shapes.
struct Tensors {
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
};

Result<Tensors> attention_tensors(GraphBuilder& b, const std::vector<std::string>& names) {
  Tensors inside;
  for (const std::string& name : names) {
    if (!has_component(name, is_attention_part)) continue;
    Result<Matrix> m = b.weights().get_any(name);  // small: the attention's own tensors
    if (!m.ok()) return m.status();
    inside.names.push_back(name);
    inside.shapes.push_back(m->shape);
  }
  return inside;
}

// The names in `inside` for which `keep(shape)` holds, but those taken already.
template <class Keep>
std::vector<std::string> matching(const Tensors& inside, const std::vector<std::string>& taken,
                                  Keep keep) {
  std::vector<std::string> found;
  for (size_t i = 0; i < inside.names.size(); ++i) {
    const bool is_taken = std::find(taken.begin(), taken.end(), inside.names[i]) != taken.end();
    if (!is_taken && keep(inside.shapes[i])) found.push_back(inside.names[i]);
  }
  return found;
}

std::string bias_of(GraphBuilder& b, const std::string& weight) {
  const std::string bias = module_of(weight) + ".bias";
  return ends_with(weight, ".weight") && b.weights().has(bias) ? bias : std::string();
}

// W is the attention's 2-D tensor reading the pooled width with more than one row; v has
// A elements ([1, A] or [A]) and is not W's bias. A bias of v adds one constant to every
// score, which the softmax cancels: it is read and left out.
Status take_attention(GraphBuilder& b, const std::vector<std::string>& names, ClassifierWeights* w,
                      ClassifierNames* n) {
  FOCAL_ASSIGN_OR_RETURN(const Tensors inside, attention_tensors(b, names));
  const int64_t width = w->width();
  const std::string what = "attention W (a Linear(" + std::to_string(width) +
                           ", A) under a module named att*: attention.W, attn.W, attention.attn)";
  FOCAL_ASSIGN_OR_RETURN(n->attention_w, only(matching(inside, {},
                                                       [&](const std::vector<int64_t>& s) {
                                                         return s.size() == 2 && s[1] == width &&
                                                                s[0] > 1;
                                                       }),
                                              what, inside.names.empty() ? names : inside.names));
  w->att_w = take(b, n->attention_w);
  const int64_t units = w->att_w.shape[0];
  n->attention_b = bias_of(b, n->attention_w);
  const std::vector<std::string> vs =
      matching(inside, {n->attention_w, n->attention_b}, [&](const std::vector<int64_t>& s) {
        return (s.size() == 1 && s[0] == units) || (s == std::vector<int64_t>{1, units});
      });
  FOCAL_ASSIGN_OR_RETURN(
      n->attention_v,
      only(vs, "attention v (" + std::to_string(units) + " elements: attention.v, a Linear(A, 1))",
           inside.names));
  if (!n->attention_b.empty()) w->att_b = as_vector(take(b, n->attention_b));
  w->att_v = as_vector(take(b, n->attention_v));
  if (!bias_of(b, n->attention_v).empty()) take(b, bias_of(b, n->attention_v));
  return b.status();
}

Status take_embedding(GraphBuilder& b, const std::vector<std::string>& names, ClassifierWeights* w,
                      ClassifierNames* n) {
  FOCAL_ASSIGN_OR_RETURN(n->embedding, find_embedding(names));
  w->embedding = take(b, n->embedding);
  FOCAL_RETURN_IF_ERROR(b.status());
  if (w->embedding.shape.size() == 2) return Status();
  return refused("rnn-classifier: the embedding '" + n->embedding + "' has shape " +
                 dims_text(w->embedding.shape) + ", expected [vocab, E]");
}

Status take_head(GraphBuilder& b, const std::vector<std::string>& names, ClassifierWeights* w,
                 ClassifierNames* n) {
  FOCAL_ASSIGN_OR_RETURN(n->classifier_w, find_head(names, b.weights().unused()));
  n->classifier_b = module_of(n->classifier_w) + ".bias";
  w->cls_w = take(b, n->classifier_w);
  w->cls_b = take_if_present(b, n->classifier_b);
  FOCAL_RETURN_IF_ERROR(b.status());
  if (w->cls_w.shape.size() == 2) return Status();
  return refused("rnn-classifier: the head '" + n->classifier_w + "' has shape " +
                 dims_text(w->cls_w.shape) + ", expected [C, width]");
}

Status check_config(const nlohmann::json& config, const ClassifierWeights& w,
                    const PresetOptions& options) {
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "vocab_size", w.embedding.shape[0], options));
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "embedding", w.embedding.shape[1], options));
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "hidden", w.hidden, options));
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "attention_units", w.att_w.shape[0], options));
  return check_config_agrees(config, "num_classes", w.cls_w.shape[0], options);
}

}  // namespace

Status build_rnn_classifier(const nlohmann::json& config, const PresetOptions& options,
                            GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq, classifier_max_seq(config, options));
  const std::vector<std::string> names = b.weights().names();
  FOCAL_ASSIGN_OR_RETURN(const std::string rnn, find_recurrent_module(names));
  ClassifierWeights w;
  ClassifierNames n;
  n.recurrent = rnn + "weight_*";
  FOCAL_RETURN_IF_ERROR(take_recurrent(b, rnn, &w));
  FOCAL_RETURN_IF_ERROR(take_embedding(b, names, &w, &n));
  FOCAL_RETURN_IF_ERROR(take_attention(b, names, &w, &n));
  FOCAL_RETURN_IF_ERROR(take_head(b, names, &w, &n));
  FOCAL_RETURN_IF_ERROR(check_config(config, w, options));
  return build_classifier_graph(w, n, max_seq, options, /*mask_input=*/true, b);
}

}  // namespace convert
}  // namespace focal
