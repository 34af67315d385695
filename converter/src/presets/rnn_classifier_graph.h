// The attention-pooled RNN classifier's graph, shared by the PyTorch (rnn-classifier)
// and Keras (keras-classifier) presets, which differ only in where they find the
// weights: embedding, 1..n (bi)LSTM/GRU layers, attention pooling
// (score_s = v . tanh(W h_s + b) over the valid positions, pooled = sum_s a_s h_s) and a
// classifier with a sigmoid (C == 1) or a softmax. Inputs input_ids [batch, seq] and,
// for the PyTorch preset, attention_mask [batch, seq] (optional: unset, every position is
// a token); the Keras preset has exactly the Keras model's one input, input_ids (the
// tutorial's keras.Input(shape=(maxlen,)) has no mask). Outputs logits and probabilities
// [batch, C] and the pooling weights, attention [batch, seq].
#pragma once

#include <string>
#include <vector>

#include "presets/preset.h"

namespace focal {
namespace convert {

struct RecurrentDirection {
  Matrix w_ih, w_hh, b_ih, b_hh;  // PyTorch layout: [G*H, in], [G*H, H], [G*H] (or empty)
};

struct ClassifierWeights {
  fb::RecurrentCell cell = fb::RecurrentCell_Lstm;
  int64_t hidden = 0;
  Matrix embedding;                                     // [V, E]
  std::vector<std::vector<RecurrentDirection>> layers;  // per layer: forward, then backward
  Matrix att_w, att_b, att_v;                           // [A, dirs*H], [A] (or empty), [A]
  Matrix cls_w, cls_b;                                  // [C, dirs*H], [C] (or empty)

  int64_t directions() const { return layers.empty() ? 0 : int64_t(layers[0].size()); }
  int64_t width() const { return directions() * hidden; }  // of the pooled states
};

// Checks every shape against the others (the embedding width against the first layer's
// input, the recurrent gates against the hidden size, the head against the pooled
// width), naming the checkpoint tensor in `names` (what each part is called in this
// checkpoint: "embedding", "attention W", ...) that disagrees, then builds the graph.
struct ClassifierNames {
  std::string embedding, recurrent, attention_w, attention_b, attention_v, classifier_w,
      classifier_b;
};
// `mask_input`: whether the model takes the optional attention_mask (PyTorch) or not (Keras).
Status build_classifier_graph(const ClassifierWeights& w, const ClassifierNames& names,
                              int64_t max_seq, const PresetOptions& options, bool mask_input, GraphBuilder& b);

// The planned sequence length: --max-seq, else the config's max_len (256 by default).
Result<int64_t> classifier_max_seq(const nlohmann::json& config, const PresetOptions& options);
// Sizes the tensors state; a config key given anyway must agree: an error naming the
// key, its value and what the tensors say.
Status check_config_agrees(const nlohmann::json& config, const char* key, int64_t from_tensors,
                           const PresetOptions& options);

// Helpers the two presets share.
bool ends_with(const std::string& s, const std::string& suffix);
std::vector<std::string> split_on(const std::string& name, char separator);  // "a.b" -> a, b
// "a, b, c" (at most `count`, then "..."): errors hold 240 characters.
std::string listed(const std::vector<std::string>& names, size_t count = 4);
Status refused(const std::string& what);  // kInvalidArgument with this message
// The checkpoint tensor as stored (the graph checks its shape, naming it), or an empty
// Matrix with the error kept in the builder; the _if_present form flattens it to one dim
// and is empty when the tensor is absent.
Matrix take(GraphBuilder& b, const std::string& name);
Matrix take_if_present(GraphBuilder& b, const std::string& name);
std::string dims_text(const std::vector<int64_t>& shape);  // "[2, 3]"
Matrix as_vector(Matrix m);                                // every element, in order, as one dim

}  // namespace convert
}  // namespace focal
