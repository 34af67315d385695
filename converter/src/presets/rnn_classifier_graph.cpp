#include "presets/rnn_classifier_graph.h"

namespace focal {
namespace convert {
namespace {

int vector_constant(GraphBuilder& b, const std::string& name, const Matrix& m) {
  return m.shape.empty() ? -1 : b.constant(name, m);
}

// One recurrent layer over x: its states [B, S, dirs * hidden]. Layer 0 keeps the
// tensor names "rnn.forward.*" of single-layer models.
int recurrent_layer(GraphBuilder& b, const ClassifierWeights& w, size_t layer, int x, int mask,
                    GraphBuilder::Dim B, GraphBuilder::Dim S) {
  const std::string op = layer == 0 ? "rnn" : "rnn.l" + std::to_string(layer);
  const std::vector<RecurrentDirection>& dirs = w.layers[layer];
  ModelWriter::RecurrentSpec s;
  s.x = x;
  s.mask = mask;
  s.cell = w.cell;
  s.hidden = static_cast<int>(w.hidden);
  int* slots[2][4] = {{&s.w_ih, &s.w_hh, &s.b_ih, &s.b_hh},
                      {&s.w_ih_r, &s.w_hh_r, &s.b_ih_r, &s.b_hh_r}};
  for (size_t d = 0; d < dirs.size() && d < 2; ++d) {
    const std::string name = op + (d == 0 ? ".forward" : ".backward");
    *slots[d][0] = b.constant(name + ".w_ih", dirs[d].w_ih);
    *slots[d][1] = b.constant(name + ".w_hh", dirs[d].w_hh);
    *slots[d][2] = vector_constant(b, name + ".b_ih", dirs[d].b_ih);
    *slots[d][3] = vector_constant(b, name + ".b_hh", dirs[d].b_hh);
  }
  const int states = b.activation(op, {B, S, {w.width(), -1}});
  if (b.status().ok()) b.writer().add_recurrent(op, s, {states});
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
            vector_constant(b, "classifier.bias.sigmoid", w.cls_b), fb::Activation_Sigmoid,
            probabilities);
  } else if (b.status().ok()) {
    b.writer().add_softmax("probabilities", logits, probabilities);
  }
}

Status shape_error(const std::string& tensor, const std::string& what,
                   const std::vector<int64_t>& found, const std::string& expected) {
  return Status::error(StatusCode::kInvalidArgument, "%s ('%s') has shape %s, expected %s",
                       what.c_str(), tensor.c_str(), dims_text(found).c_str(), expected.c_str());
}

// Each recurrent layer reads the previous one's width (the first, the embedding's) and
// has G = 4 (LSTM) or 3 (GRU) gates of `hidden`.
Status check_recurrent_shapes(const ClassifierWeights& w, const ClassifierNames& names) {
  const int64_t g = (w.cell == fb::RecurrentCell_Gru ? 3 : 4) * w.hidden;
  int64_t input = w.embedding.shape[1];
  for (size_t l = 0; l < w.layers.size(); ++l) {
    for (const RecurrentDirection& d : w.layers[l]) {
      const std::string layer = "recurrent layer " + std::to_string(l) + " input weight";
      if (d.w_ih.shape != std::vector<int64_t>{g, input}) {
        return shape_error(names.recurrent, layer + " (as [G*H, in])", d.w_ih.shape,
                           dims_text({g, input}));
      }
      if (d.w_hh.shape != std::vector<int64_t>{g, w.hidden}) {
        return shape_error(names.recurrent, "its recurrent weight (as [G*H, H])", d.w_hh.shape,
                           dims_text({g, w.hidden}));
      }
      for (const Matrix* bias : {&d.b_ih, &d.b_hh}) {
        if (!bias->shape.empty() && bias->shape != std::vector<int64_t>{g}) {
          return shape_error(names.recurrent, "its bias", bias->shape, dims_text({g}));
        }
      }
    }
    input = w.width();
  }
  return Status();
}

// The attention and classifier weights read the pooled width and agree on the units A.
Status check_head_shapes(const ClassifierWeights& w, const ClassifierNames& names) {
  const int64_t width = w.width(), units = w.att_w.shape[0];
  const std::string pooled = std::to_string(width) + " = " + std::to_string(w.directions()) +
                             " directions x " + std::to_string(w.hidden);
  if (w.att_w.shape[1] != width)
    return shape_error(names.attention_w, "the attention W (as [A, width])", w.att_w.shape,
                       "[A, " + pooled + "]");
  if (!w.att_b.shape.empty() && w.att_b.shape[0] != units)
    return shape_error(names.attention_b, "the attention bias", w.att_b.shape, dims_text({units}));
  if (w.att_v.shape != std::vector<int64_t>{units})
    return shape_error(names.attention_v, "the attention v", w.att_v.shape, dims_text({units}));
  if (w.cls_w.shape[1] != width)
    return shape_error(names.classifier_w, "the classifier weight (as [C, width])", w.cls_w.shape,
                       "[C, " + pooled + "]");
  if (!w.cls_b.shape.empty() && w.cls_b.shape != std::vector<int64_t>{w.cls_w.shape[0]}) {
    return shape_error(names.classifier_b, "the classifier bias", w.cls_b.shape,
                       dims_text({w.cls_w.shape[0]}));
  }
  return Status();
}

}  // namespace

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> split_on(const std::string& name, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = name.find(separator); at != std::string::npos;
       at = name.find(separator, start)) {
    parts.push_back(name.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(name.substr(start));
  return parts;
}

std::string listed(const std::vector<std::string>& names, size_t count) {
  std::string text;
  for (size_t i = 0; i < names.size() && i < count; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > count) text += ", ...";
  return text.empty() ? "(none)" : text;
}

Status refused(const std::string& what) {
  return Status::error(StatusCode::kInvalidArgument, "%s", what.c_str());
}

Matrix take(GraphBuilder& b, const std::string& name) {
  Result<Matrix> m = b.weights().get_any(name);
  if (!m.ok()) {
    b.fail(m.status());
    return Matrix{};
  }
  return std::move(m).value();
}

Matrix take_if_present(GraphBuilder& b, const std::string& name) {
  return b.weights().has(name) ? as_vector(take(b, name)) : Matrix{};
}

std::string dims_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

Matrix as_vector(Matrix m) {
  int64_t count = 1;
  for (int64_t d : m.shape) count *= d;
  m.shape = {count};
  return m;
}

Result<int64_t> classifier_max_seq(const nlohmann::json& config, const PresetOptions& options) {
  if (options.max_seq > 0) return options.max_seq;
  return named_config(options, config_int(config, "max_len", 256));
}

Status check_config_agrees(const nlohmann::json& config, const char* key, int64_t from_tensors,
                           const PresetOptions& options) {
  if (!config.contains(key) || config[key].is_null()) return Status();
  FOCAL_ASSIGN_OR_RETURN(const int64_t given, named_config(options, config_int(config, key)));
  if (given == from_tensors) return Status();
  return config_error(
      options, config_refused(std::string(key) + " is " + std::to_string(given) +
                              " but the checkpoint's tensors say " + std::to_string(from_tensors) +
                              " (leave it out: it is read from the tensors)"));
}

Status build_classifier_graph(const ClassifierWeights& w, const ClassifierNames& names,
                              int64_t max_seq, const PresetOptions& options, bool mask_input, GraphBuilder& b) {
  FOCAL_RETURN_IF_ERROR(b.status());
  if (w.layers.empty() || w.directions() > 2) {
    return Status::error(StatusCode::kInvalidArgument, "%lld recurrent directions, expected 1 or 2",
                         static_cast<long long>(w.directions()));
  }
  FOCAL_RETURN_IF_ERROR(check_recurrent_shapes(w, names));
  FOCAL_RETURN_IF_ERROR(check_head_shapes(w, names));
  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim S{max_seq, b.symbol("seq", max_seq)};
  const int ids = b.input("input_ids", DType::kI32, {B, S});
  // Optional where the model has it (unset, every position is a token); none for Keras.
  const int mask = mask_input ? b.optional_input("attention_mask", DType::kI32, {B, S}, 1) : -1;
  int states =
      b.embedding("embedding", ids, b.constant("embedding", w.embedding), -1, -1, -1, 1.0f);
  for (size_t l = 0; l < w.layers.size(); ++l)
    states = recurrent_layer(b, w, l, states, mask, B, S);
  const int pooled = b.activation("attention.pooled", {B, {w.width(), -1}});
  const int weights = b.output("attention", {B, S});
  const int att_w = b.constant("attention.W", w.att_w);
  const int att_b = vector_constant(b, "attention.b", w.att_b);
  const int att_v = b.constant("attention.v", w.att_v);
  if (b.status().ok())
    b.writer().add_attention_pool("attention", states, mask, att_w, att_b, att_v, pooled, weights);
  classifier_head(b, w, pooled, B);
  return b.status();
}

}  // namespace convert
}  // namespace focal
