// keras-classifier: the attention-pooled classifier from a Keras weight file, sizes from
// the tensors. Keras 2 `.h5` (save_weights, or save under model_weights/;
// keras/src/legacy/saving/legacy_h5_format.py save_weights_to_hdf5_group: a group per
// layer holding its weights by their names, so a sublayer's weight is
// <layer>/<layer>/<sublayer>/kernel:0) and Keras 3 `.keras` archives (saving_lib.py
// _save_state: layers/<layer>/<attribute path>/vars/<i>, in creation order) are both
// read as blocks: a layer, the sublayer path inside it and its variables by name. The
// model found in them:
//   Embedding        the block with `embeddings` [V, E];
//   LSTM or GRU      a block with kernel [in, G*H], recurrent_kernel [H, G*H] and bias:
//                    an LSTM's [4H] (gates i, f, c, o as PyTorch's i, f, g, o), a GRU's
//                    [2, 3H] (reset_after; gates z, r, h reordered to PyTorch's r, z, n);
//                    inside a Bidirectional when a second one's path says backward
//                    (outputs concatenated);
//   attention        own weights W [2H, A], b [A], v (or u) [A] or [A, 1], or two Dense
//                    sublayers (the BahdanauAttention: score = V(tanh(W(h))), W kernel
//                    [2H, A] and bias [A], V kernel [A, 1] and a bias that cancels in the
//                    softmax over time);
//   the head         the one other Dense at the top of its layer: kernel [2H, C], bias.
// Dropout has no weights. Only max_len comes from the config (default 256).
#include <algorithm>
#include <map>

#include "presets/rnn_classifier_graph.h"

namespace focal {
namespace convert {
namespace {

struct KerasBlock {
  std::string layer, path;                                // path: "" for the layer's own weights
  std::vector<std::pair<std::string, std::string>> vars;  // (variable name, tensor name)

  std::string find(const std::string& var) const {
    for (const auto& v : vars) {
      if (v.first == var) return v.second;
    }
    return std::string();
  }
  std::string where() const { return path.empty() ? layer : layer + "/" + path; }
};

std::string joined(const std::vector<std::string>& parts, size_t begin, size_t end) {
  std::string text;
  for (size_t i = begin; i < end; ++i) text += (text.empty() ? "" : "/") + parts[i];
  return text;
}

// Keras 2: [model_weights/]<layer>/[<layer>/]<path>/<var>:0. The optimizer's slots
// (optimizer_weights/...) are not the model's.
bool parse_keras2(const std::string& name, KerasBlock* block, std::string* var) {
  std::vector<std::string> parts = split_on(name, '/');
  if (parts.size() < 2 || !ends_with(parts.back(), ":0") || parts[0] == "optimizer_weights")
    return false;
  if (parts[0] == "model_weights") parts.erase(parts.begin());
  if (parts.size() < 2) return false;
  size_t begin = 1;
  if (parts.size() > 2 && parts[1] == parts[0])
    begin = 2;  // the weight's name scope repeats the layer
  block->layer = parts[0];
  block->path = joined(parts, begin, parts.size() - 1);
  *var = parts.back().substr(0, parts.back().size() - 2);
  return true;
}

// Keras 3: [layers/]<layer>/<path>/vars/<i>.
// Outside layers/ (a subclassed model's attributes) the optimizer and the private
// trackers of compiled metrics and losses (_loss_tracker, ...) hold training state:
// skipped, as a .weights.h5 of save_weights keeps them next to the layers.
bool parse_keras3(const std::string& name, KerasBlock* block, std::string* var) {
  std::vector<std::string> parts = split_on(name, '/');
  if (!parts.empty() && parts[0] == "layers") {
    parts.erase(parts.begin());
  } else if (!parts.empty() && (parts[0] == "optimizer" || parts[0].rfind('_', 0) == 0)) {
    return false;
  }
  if (parts.size() < 3 || parts[parts.size() - 2] != "vars") return false;
  if (parts.back().empty() || parts.back().find_first_not_of("0123456789") != std::string::npos)
    return false;
  block->layer = parts[0];
  block->path = joined(parts, 1, parts.size() - 2);
  *var = parts.back();
  return true;
}

// Keras 3 keeps no variable names: they follow from the layer kind, in build order
// (a recurrent cell: kernel, recurrent_kernel, bias; an Embedding: embeddings; a Dense:
// kernel, bias; a layer with three weights of its own: W, b, v).
std::vector<const char*> keras3_var_names(const KerasBlock& block) {
  if (block.path == "cell" || ends_with(block.path, "/cell"))
    return {"kernel", "recurrent_kernel", "bias"};
  if (block.vars.size() == 1 && block.layer.rfind("embedding", 0) == 0) return {"embeddings"};
  if (block.vars.size() == 3) return {"W", "b", "v"};
  return {"kernel", "bias"};
}

void name_keras3_vars(KerasBlock& block) {
  const std::vector<const char*> names = keras3_var_names(block);
  std::sort(block.vars.begin(), block.vars.end(), [](const auto& a, const auto& b) {
    return a.first.size() != b.first.size() ? a.first.size() < b.first.size()
                                            : a.first < b.first;  // digits
  });
  for (size_t i = 0; i < block.vars.size() && i < names.size(); ++i) block.vars[i].first = names[i];
}

std::vector<KerasBlock> keras_blocks(const std::vector<std::string>& names) {
  std::vector<KerasBlock> blocks;
  std::map<std::string, size_t> index;
  bool keras3 = false;
  for (const std::string& name : names) {
    KerasBlock block;
    std::string var;
    const bool k3 = parse_keras3(name, &block, &var);
    if (!k3 && !parse_keras2(name, &block, &var)) continue;
    keras3 = keras3 || k3;
    const auto at = index.emplace(block.where(), blocks.size());
    if (at.second) blocks.push_back(block);
    blocks[at.first->second].vars.emplace_back(var, name);
  }
  if (keras3) {
    for (KerasBlock& block : blocks) name_keras3_vars(block);
  }
  return blocks;
}

std::vector<std::string> layer_names(const std::vector<KerasBlock>& blocks) {
  std::vector<std::string> layers;
  for (const KerasBlock& block : blocks) {
    if (std::find(layers.begin(), layers.end(), block.layer) == layers.end())
      layers.push_back(block.layer);
  }
  return layers;
}

Status unknown_layout(const std::vector<KerasBlock>& blocks, const std::string& missing) {
  return refused("keras-classifier: " + missing +
                 "; the file's layers: " + listed(layer_names(blocks), 8));
}

// A Keras kernel [in, out] as PyTorch's [out, in]; empty when missing or not 2-D (the
// graph's shape checks then name it).
Matrix keras_kernel(GraphBuilder& b, const std::string& tensor) {
  Matrix m = take(b, tensor);
  return m.shape.size() == 2 ? transposed(m) : m;
}

bool is_backward(const KerasBlock& block) {
  return block.where().find("backward") != std::string::npos;
}

// Keras's GRU gates are z, r, h (keras/src/layers/rnn/gru.py), PyTorch's r, z, n: the
// row blocks of a [3H, ...] weight (or [3H] bias) reordered.
Matrix gru_gates_as_pytorch(const Matrix& m, int64_t hidden) {
  if (m.shape.empty() || m.shape[0] != 3 * hidden) return m;  // the shape check names it
  return stacked(stacked(row_slice(m, hidden, hidden), row_slice(m, 0, hidden)),
                 row_slice(m, 2 * hidden, hidden));
}

// One direction in PyTorch's layout. An LSTM has one bias (taken as b_ih); a GRU with
// reset_after (the default since Keras 2.3) has [2, 3H]: input bias, then recurrent.
Status take_direction(GraphBuilder& b, const KerasBlock& block, RecurrentDirection* d,
                      fb::RecurrentCell* cell, int64_t* hidden) {
  d->w_ih = keras_kernel(b, block.find("kernel"));
  d->w_hh = keras_kernel(b, block.find("recurrent_kernel"));
  const Matrix bias = block.find("bias").empty() ? Matrix{} : take(b, block.find("bias"));
  FOCAL_RETURN_IF_ERROR(b.status());
  const std::vector<int64_t>& w_hh = d->w_hh.shape;
  if (w_hh.size() != 2 || w_hh[1] == 0 || (w_hh[0] != 4 * w_hh[1] && w_hh[0] != 3 * w_hh[1])) {
    return refused("keras-classifier: " + block.where() + " recurrent_kernel is " +
                   dims_text(w_hh) + " (as [G*H, H]); LSTM (4H) and GRU (3H) cells are read");
  }
  *hidden = w_hh[1];
  *cell = w_hh[0] == 4 * w_hh[1] ? fb::RecurrentCell_Lstm : fb::RecurrentCell_Gru;
  if (*cell == fb::RecurrentCell_Lstm) {
    d->b_ih = bias.shape.empty() ? bias : as_vector(bias);
    return Status();
  }
  if (!bias.shape.empty() && bias.shape != std::vector<int64_t>{2, w_hh[0]}) {
    return refused("keras-classifier: the GRU bias " + block.find("bias") + " is " +
                   dims_text(bias.shape) + ", expected " + dims_text({2, w_hh[0]}) +
                   " (a GRU with reset_after=False is not read)");
  }
  d->w_ih = gru_gates_as_pytorch(d->w_ih, *hidden);
  d->w_hh = gru_gates_as_pytorch(d->w_hh, *hidden);
  if (!bias.shape.empty()) {
    d->b_ih = gru_gates_as_pytorch(as_vector(row_slice(bias, 0, 1)), *hidden);
    d->b_hh = gru_gates_as_pytorch(as_vector(row_slice(bias, 1, 1)), *hidden);
  }
  return Status();
}

Status take_recurrent(GraphBuilder& b, const std::vector<KerasBlock>& blocks, ClassifierWeights* w,
                      ClassifierNames* n) {
  const KerasBlock* dirs[2] = {nullptr, nullptr};
  for (const KerasBlock& block : blocks) {
    if (block.find("recurrent_kernel").empty()) continue;
    const KerasBlock*& slot = dirs[is_backward(block) ? 1 : 0];
    if (slot != nullptr) {
      return refused("keras-classifier: several recurrent layers (" + slot->where() + ", " +
                     block.where() +
                     "); the classifier has one LSTM or GRU (or one Bidirectional)");
    }
    slot = &block;
  }
  if (dirs[0] == nullptr)
    return unknown_layout(blocks, "no LSTM or GRU (a block with kernel, recurrent_kernel, bias)");
  n->recurrent = dirs[0]->where();
  std::vector<RecurrentDirection> layer;
  for (const KerasBlock* block : dirs) {
    if (block == nullptr) continue;
    layer.emplace_back();
    FOCAL_RETURN_IF_ERROR(take_direction(b, *block, &layer.back(), &w->cell, &w->hidden));
  }
  w->layers.push_back(std::move(layer));
  return Status();
}

Status take_embedding(GraphBuilder& b, const std::vector<KerasBlock>& blocks, ClassifierWeights* w,
                      ClassifierNames* n) {
  for (const KerasBlock& block : blocks) {
    if (block.find("embeddings").empty()) continue;
    n->embedding = block.find("embeddings");
    w->embedding = take(b, n->embedding);
    if (b.status().ok() && w->embedding.shape.size() != 2) {
      return refused("keras-classifier: " + n->embedding + " has shape " +
                     dims_text(w->embedding.shape) + ", expected [vocab, E]");
    }
    return b.status();
  }
  return unknown_layout(blocks, "no Embedding (embeddings)");
}

// An attention layer with its own weights W, b, v (or u).
bool take_own_attention(GraphBuilder& b, const KerasBlock& block, ClassifierWeights* w,
                        ClassifierNames* n) {
  const std::string v = block.find("v").empty() ? block.find("u") : block.find("v");
  if (block.find("W").empty() || v.empty()) return false;
  n->attention_w = block.find("W");
  n->attention_b = block.find("b");
  n->attention_v = v;
  w->att_w = keras_kernel(b, n->attention_w);
  if (!n->attention_b.empty()) w->att_b = as_vector(take(b, n->attention_b));
  w->att_v = as_vector(take(b, v));
  return true;
}

// A layer of two Dense sublayers: V's kernel has one column, W's the units.
bool take_sublayer_attention(GraphBuilder& b, const std::vector<KerasBlock>& blocks,
                             const std::string& layer, ClassifierWeights* w, ClassifierNames* n) {
  std::vector<const KerasBlock*> dense;
  for (const KerasBlock& block : blocks) {
    if (block.layer == layer && !block.path.empty() && !block.find("kernel").empty() &&
        block.find("recurrent_kernel").empty()) {
      dense.push_back(&block);
    }
  }
  if (dense.size() != 2) return false;
  Matrix first = take(b, dense[0]->find("kernel")), second = take(b, dense[1]->find("kernel"));
  if (first.shape.size() != 2 || second.shape.size() != 2) return false;
  const bool first_is_v = first.shape[1] == 1 && second.shape[1] != 1;
  const KerasBlock& wb = first_is_v ? *dense[1] : *dense[0];
  const KerasBlock& vb = first_is_v ? *dense[0] : *dense[1];
  n->attention_w = wb.find("kernel");
  n->attention_b = wb.find("bias");
  n->attention_v = vb.find("kernel");
  w->att_w = transposed(first_is_v ? second : first);
  w->att_v = as_vector(first_is_v ? first : second);
  if (!n->attention_b.empty()) w->att_b = as_vector(take(b, n->attention_b));
  if (!vb.find("bias").empty())
    take(b, vb.find("bias"));  // one constant added to every score: cancels
  return true;
}

// The attention layer's name, its weights taken.
Result<std::string> take_attention(GraphBuilder& b, const std::vector<KerasBlock>& blocks,
                                   ClassifierWeights* w, ClassifierNames* n) {
  for (const KerasBlock& block : blocks) {
    if (take_own_attention(b, block, w, n)) return block.layer;
  }
  for (const std::string& layer : layer_names(blocks)) {
    if (take_sublayer_attention(b, blocks, layer, w, n)) return layer;
  }
  return unknown_layout(
      blocks,
      "no attention layer (own weights W, b, v, or two Dense sublayers: W kernel [2H, A], "
      "V kernel [A, 1])");
}

Status take_head(GraphBuilder& b, const std::vector<KerasBlock>& blocks,
                 const std::string& attention, ClassifierWeights* w, ClassifierNames* n) {
  std::vector<const KerasBlock*> found;
  for (const KerasBlock& block : blocks) {
    if (block.path.empty() && block.layer != attention && !block.find("kernel").empty() &&
        block.find("recurrent_kernel").empty()) {
      found.push_back(&block);
    }
  }
  if (found.empty())
    return unknown_layout(blocks, "no Dense head (a layer with kernel [2H, C] and bias)");
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const KerasBlock* block : found) names.push_back(block->layer);
    return refused("keras-classifier: several Dense heads: " + listed(names) +
                   "; the classifier has one");
  }
  n->classifier_w = found[0]->find("kernel");
  n->classifier_b = found[0]->find("bias");
  w->cls_w = keras_kernel(b, n->classifier_w);
  if (!n->classifier_b.empty()) w->cls_b = as_vector(take(b, n->classifier_b));
  FOCAL_RETURN_IF_ERROR(b.status());
  if (w->cls_w.shape.size() != 2) {
    return refused("keras-classifier: " + n->classifier_w + " has shape " +
                   dims_text(w->cls_w.shape) + ", expected [2H, C]");
  }
  return Status();
}

}  // namespace

Status build_keras_classifier(const nlohmann::json& config, const PresetOptions& options,
                              GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq, classifier_max_seq(config, options));
  const std::vector<KerasBlock> blocks = keras_blocks(b.weights().names());
  if (blocks.empty()) {
    return refused(
        "keras-classifier: no Keras weights (names like <layer>/<layer>/kernel:0 from a .h5, or "
        "layers/<layer>/vars/0 from a .keras archive); the file holds " +
        listed(b.weights().names()));
  }
  ClassifierWeights w;
  ClassifierNames n;
  FOCAL_RETURN_IF_ERROR(take_embedding(b, blocks, &w, &n));
  FOCAL_RETURN_IF_ERROR(take_recurrent(b, blocks, &w, &n));
  FOCAL_ASSIGN_OR_RETURN(const std::string attention, take_attention(b, blocks, &w, &n));
  FOCAL_RETURN_IF_ERROR(b.status());
  FOCAL_RETURN_IF_ERROR(take_head(b, blocks, attention, &w, &n));
  FOCAL_RETURN_IF_ERROR(check_config_agrees(config, "hidden", w.hidden, options));
  return build_classifier_graph(w, n, max_seq, options, /*mask_input=*/false, b);
}

}  // namespace convert
}  // namespace focal
