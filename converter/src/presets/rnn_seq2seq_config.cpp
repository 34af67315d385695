// The seq2seq model's sizes and forms: read from the tensors wherever their shapes tell
// (cells, widths, layer counts, directions, vocabularies, attention units, the score
// form, whether the context feeds the decoder input), from the config for what they
// cannot (bos_token_id or decoder_start_token_id, eos_token_id, max_src_len, the combine order, tanh on a Linear(.., 1) score,
// a cell state carried or reset). A config value, when given, wins and is checked
// against the tensors as they are read. Random weights (benchmarks) have no tensors:
// there the config gives everything, as converter/README.md lists for our naming.
#include "presets/rnn_seq2seq.h"

namespace focal {
namespace convert {
namespace {

using ll = long long;  // printf's %lld

bool given(const nlohmann::json& config, const char* key) {
  return config.is_object() && config.contains(key) && !config.at(key).is_null();
}

Result<std::vector<int64_t>> shape_of(WeightSource& w, const std::string& tensor) {
  FOCAL_ASSIGN_OR_RETURN(const Matrix m, w.get_any(tensor));
  return m.shape;
}

// Config `key` when given, else dim `axis` of `tensor` (an error naming the nearest names
// when the checkpoint lacks it).
Result<int64_t> size_of(const nlohmann::json& config, const char* key, WeightSource& w, const std::string& tensor,
                        size_t axis) {
  if (given(config, key)) return config_int(config, key);
  FOCAL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, shape_of(w, tensor));
  if (shape.size() <= axis) {
    return Status::error(StatusCode::kInvalidArgument, "tensor '%s' has %zu dims, expected at least %zu",
                         tensor.c_str(), shape.size(), axis + 1);
  }
  return shape[axis];
}

// Layers of nn.LSTM/nn.GRU `module`: config `key`, else how many weight_hh_l{k} exist.
Result<int64_t> layers_of(const nlohmann::json& config, const char* key, const WeightSource& w,
                          const std::string& module) {
  if (given(config, key) || !w.has(module + ".weight_hh_l0")) return config_int(config, key, 1);
  int64_t layers = 1;
  while (w.has(module + ".weight_hh_l" + std::to_string(layers))) ++layers;
  return layers;
}

// LSTM or GRU: config `cell`, else the module's name, else its gate rows (4H or 3H).
Result<fb::RecurrentCell> cell_of(const nlohmann::json& config, WeightSource& w, const Seq2SeqModel& m) {
  std::string cell;
  FOCAL_ASSIGN_OR_RETURN(cell, config_string(config, "cell", ""));
  const std::string& module = m.names.encoder;
  if (cell.empty() && module.find("lstm") != std::string::npos) cell = "lstm";
  if (cell.empty() && module.find("gru") != std::string::npos) cell = "gru";
  if (cell.empty() && w.has(module + ".weight_hh_l0")) {
    FOCAL_ASSIGN_OR_RETURN(const std::vector<int64_t> hh, shape_of(w, module + ".weight_hh_l0"));
    if (hh.size() == 2 && hh[0] == 4 * hh[1]) cell = "lstm";
    if (hh.size() == 2 && hh[0] == 3 * hh[1]) cell = "gru";
  }
  if (cell.empty()) cell = "lstm";  // random weights with no `cell`: the historical default
  if (cell != "lstm" && cell != "gru") return config_refused("cell must be lstm or gru (--set cell=lstm)");
  return cell == "lstm" ? fb::RecurrentCell_Lstm : fb::RecurrentCell_Gru;
}

Status read_recurrent_sizes(const nlohmann::json& config, WeightSource& w, Seq2SeqModel* m) {
  const Seq2SeqNames& n = m->names;
  FOCAL_ASSIGN_OR_RETURN(m->cell, cell_of(config, w, *m));
  FOCAL_ASSIGN_OR_RETURN(m->hidden, size_of(config, "hidden", w, n.encoder + ".weight_hh_l0", 1));
  // Random weights (no tensors) without decoder_hidden: the encoder's, as documented.
  const bool hd_from_hidden = !given(config, "decoder_hidden") && !w.has(n.decoder + ".weight_hh_l0");
  FOCAL_ASSIGN_OR_RETURN(m->decoder_hidden, hd_from_hidden ? Result<int64_t>(m->hidden)
                                                           : size_of(config, "decoder_hidden", w,
                                                                     n.decoder + ".weight_hh_l0", 1));
  FOCAL_ASSIGN_OR_RETURN(m->encoder_layers, layers_of(config, "encoder_layers", w, n.encoder));
  FOCAL_ASSIGN_OR_RETURN(m->decoder_layers, layers_of(config, "decoder_layers", w, n.decoder));
  bool bidirectional = w.has(n.encoder + ".weight_hh_l0_reverse");
  if (given(config, "bidirectional") || !w.has(n.encoder + ".weight_hh_l0")) {
    FOCAL_ASSIGN_OR_RETURN(bidirectional, config_bool(config, "bidirectional", true));
  }
  m->dirs = bidirectional ? 2 : 1;
  return Status();
}

Status read_vocabularies(const nlohmann::json& config, WeightSource& w, Seq2SeqModel* m) {
  const Seq2SeqNames& n = m->names;
  if (n.src_embedding.empty() || n.tgt_embedding.empty()) {
    const std::string& rnn = n.src_embedding.empty() ? n.encoder : n.decoder;
    return Status::error(StatusCode::kInvalidArgument, "no %s embedding: expected '%s.embedding.weight' (or a shared "
                         "'embedding.weight')", n.src_embedding.empty() ? "source" : "target",
                         rnn.substr(0, rnn.find('.')).c_str());
  }
  FOCAL_ASSIGN_OR_RETURN(m->src_vocab, size_of(config, "src_vocab", w, n.src_embedding + ".weight", 0));
  FOCAL_ASSIGN_OR_RETURN(m->tgt_vocab, size_of(config, "tgt_vocab", w, n.tgt_embedding + ".weight", 0));
  FOCAL_ASSIGN_OR_RETURN(m->src_embedding, size_of(config, "embedding", w, n.src_embedding + ".weight", 1));
  FOCAL_ASSIGN_OR_RETURN(m->tgt_embedding, size_of(config, "embedding", w, n.tgt_embedding + ".weight", 1));
  return Status();
}

// Our naming: the form is config `attention`, else what the attention tensors are.
Status read_our_forms(const nlohmann::json& config, WeightSource& w, Seq2SeqModel* m) {
  Seq2SeqNames& n = m->names;
  std::string kind = w.has("attention.W.weight") ? "luong_general"
                     : w.has("attention.query.weight") ? (n.combine.empty() ? "bahdanau" : "luong_concat")
                     : n.combine.empty() ? "bahdanau" : "luong_dot";
  FOCAL_ASSIGN_OR_RETURN(kind, config_string(config, "attention", kind));
  if (kind != "bahdanau" && kind != "luong_general" && kind != "luong_dot" && kind != "luong_concat") {
    return config_refused("attention must be bahdanau, luong_general, luong_dot or luong_concat");
  }
  m->feed_context = m->output_with_context = kind == "bahdanau";
  n.combine = kind == "bahdanau" ? "" : "combine";
  std::string order;  // ours: [context; s_t] unless the config says otherwise
  FOCAL_ASSIGN_OR_RETURN(order, config_string(config, "combine_order", "context_first"));
  if (order != "context_first" && order != "state_first") {
    return config_refused("combine_order must be context_first or state_first");
  }
  m->context_first = order == "context_first";
  m->score = kind == "luong_general" ? ScoreForm::kGeneral : kind == "luong_dot" ? ScoreForm::kDot : ScoreForm::kAdditive;
  n.attention = kind == "luong_general" ? "attention.W" : m->score == ScoreForm::kAdditive ? "attention.key" : "";
  if (m->score == ScoreForm::kAdditive) {
    FOCAL_ASSIGN_OR_RETURN(m->units, size_of(config, "attention_units", w, "attention.key.weight", 0));
  }
  return Status();
}

// The module naming's scoring: no weights (dot), Linear(Dk, Hd) (general), Linear(Hd + Dk, 1)
// (tanh only when config score_activation says so), Linear(Hd + Dk, A) with a v (concat).
Status read_module_score(const nlohmann::json& config, WeightSource& w, Seq2SeqModel* m) {
  const Seq2SeqNames& n = m->names;
  const int64_t hd = m->decoder_hidden, dk = m->memory_width();
  if (n.attention.empty()) {
    m->score = ScoreForm::kDot;
    if (dk == hd) return Status();
    return Status::error(StatusCode::kInvalidArgument, "no attention weights found, so dot scoring, which needs the memory width (%lld) to equal the "
                   "decoder hidden size (%lld); name the scoring Linear decoder.attention or decoder.attn",
                   ll(dk), ll(hd));
  }
  if (n.attention_wa_ua) {  // v . tanh(Wa s + Ua h_j): A from Wa [A, Hd]
    m->score = ScoreForm::kAdditive;
    FOCAL_ASSIGN_OR_RETURN(m->units, size_of(config, "attention_units", w, n.attention + ".Wa.weight", 0));
    return Status();
  }
  FOCAL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, shape_of(w, n.attention + ".weight"));
  std::string activation;
  FOCAL_ASSIGN_OR_RETURN(activation, config_string(config, "score_activation", "none"));
  if (activation != "none" && activation != "tanh") return config_refused("score_activation must be none or tanh");
  if (shape.size() == 2 && shape[1] == hd + dk && !n.attention_v.empty()) {
    m->score = ScoreForm::kAdditive;
    m->units = shape[0];
    return Status();
  }
  if (shape == std::vector<int64_t>{1, hd + dk}) {
    m->score = activation == "tanh" ? ScoreForm::kConcatTanh : ScoreForm::kConcatLinear;
    return Status();
  }
  if (shape == std::vector<int64_t>{hd, dk} && n.attention_v.empty()) {
    m->score = ScoreForm::kGeneral;
    return Status();
  }
  return Status::error(StatusCode::kInvalidArgument, "the scoring Linear's weight has a shape no score form has: expected [1, %lld] (Linear([s; h]) -> 1)"
                 ", [A, %lld] with a v (concat) or [%lld, Dk] (general)",
                 ll(hd) + dk, ll(hd) + dk, ll(hd));
}

// The module naming's decoder input: [embedded; context] (Bahdanau style), the embedding
// alone (Luong) or, with a combine Linear, [embedded; previous h~] (input feeding).
Status read_decoder_input(const nlohmann::json& config, WeightSource& w, Seq2SeqModel* m) {
  const Seq2SeqNames& n = m->names;
  const int64_t hd = m->decoder_hidden, dk = m->memory_width(), e = m->tgt_embedding;
  FOCAL_ASSIGN_OR_RETURN(const std::vector<int64_t> ih, shape_of(w, n.decoder + ".weight_ih_l0"));
  const bool combine = !n.combine.empty(), feedable = combine && ih.size() == 2 && ih[1] == e + hd;
  if (ih.size() != 2 || (ih[1] != e + dk && ih[1] != e && !feedable)) {
    return Status::error(StatusCode::kInvalidArgument,
                         "the decoder's first layer takes %lld inputs: expected the embedding (%lld), [embedding; "
                         "context] (%lld) or, with a combine Linear, [embedding; attentional vector] (%lld)",
                         ll(ih.size() == 2 ? ih[1] : -1), ll(e), ll(e) + dk, ll(e) + hd);
  }
  m->input_feeding = feedable && hd != dk;
  if (feedable && hd == dk) {  // [embedded; context] or [embedded; previous h~]: equally wide
    if (!given(config, "input_feeding")) {
      return config_refused("the decoder input [embedding; X] has X as wide as the context and the attentional vector:"
                            " set input_feeding=true (X = the previous tanh(combine(..))) or false (the context)");
    }
    FOCAL_ASSIGN_OR_RETURN(m->input_feeding, config_bool(config, "input_feeding", false));
  }
  m->feed_context = !m->input_feeding && ih[1] == e + dk;
  return Status();
}

// The module naming: the decoder input and the score form from their widths, the output's
// input from its width, the combine order (never told by shapes) and the cell from the config.
Status read_module_forms(const nlohmann::json& config, WeightSource& w, Seq2SeqModel* m) {
  const Seq2SeqNames& n = m->names;
  FOCAL_RETURN_IF_ERROR(read_decoder_input(config, w, m));
  FOCAL_RETURN_IF_ERROR(read_module_score(config, w, m));
  if (n.output.empty()) {
    Result<Matrix> probe = w.get_any(n.decoder.substr(0, n.decoder.find('.')) + ".fc_out.weight");
    return probe.status();
  }
  FOCAL_ASSIGN_OR_RETURN(const std::vector<int64_t> out, shape_of(w, n.output + ".weight"));
  m->output_with_context = n.combine.empty() && out.size() == 2 && out[1] == m->decoder_hidden + m->memory_width();
  if (!n.combine.empty()) {
    std::string order;
    FOCAL_ASSIGN_OR_RETURN(order, config_string(config, "combine_order", ""));
    if (order != "context_first" && order != "state_first") {
      return config_refused("the combine Linear's input order is not in the tensors: set combine_order=state_first "
                            "([h; c], the PyTorch chatbot tutorial) or context_first ([c; h]) with --set or --config");
    }
    m->context_first = order == "context_first";
  }
  std::string cell;  // with only an h bridge, tutorials start each step from a zero cell
  const bool h_bridge_only = !n.bridge_h.empty() && n.bridge_c.empty();
  FOCAL_ASSIGN_OR_RETURN(cell, config_string(config, "decoder_cell", h_bridge_only ? "reset" : "carry"));
  if (cell != "reset" && cell != "carry") return config_refused("decoder_cell must be reset or carry");
  m->reset_cell = m->cell == fb::RecurrentCell_Lstm && cell == "reset";
  return Status();
}

// Each decoder layer starts from the encoder's final state of the same layer (a 1-layer
// decoder: of the last), through the bridge when there is one, else directly.
Status check_decoder_start(const Seq2SeqModel& m) {
  if (m.decoder_layers != 1 && m.decoder_layers != m.encoder_layers) {
    return Status::error(StatusCode::kInvalidArgument, "the decoder has %lld layers and the encoder %lld: each decoder layer starts from the encoder's "
                   "final state of the same layer, so the counts must match (or the decoder has 1 layer)",
                   ll(m.decoder_layers), ll(m.encoder_layers));
  }
  if (m.names.bridge_h.empty() && m.memory_width() != m.decoder_hidden) {
    return Status::error(StatusCode::kInvalidArgument, "without a bridge (encoder.fc) the decoder starts from the encoder's final states, %lld wide "
                   "(directions x hidden), but the decoder's hidden size is %lld",
                   ll(m.memory_width()), ll(m.decoder_hidden));
  }
  return Status();
}

// One token id under transformers' key or our older one (bos_id, eos_id), which must agree
// when both are given; eos_token_id may be a list, as generation_config.json writes it,
// of one id: translation stops on one token. -1 when neither is given.
Result<int64_t> token_key(const nlohmann::json& config, const char* key, const char* older) {
  int64_t id = -1;
  if (given(config, key)) {
    const nlohmann::json& value = config.at(key);
    if (value.is_array()) {
      if (value.size() != 1) {
        return config_refused(std::string("'") + key + "' lists " + std::to_string(value.size()) +
                              " ids; the rnn-seq2seq translation stops on one: give one id");
      }
      FOCAL_ASSIGN_OR_RETURN(id, config_int(nlohmann::json{{key, value[0]}}, key));
    } else {
      FOCAL_ASSIGN_OR_RETURN(id, config_int(config, key));
    }
  }
  if (older != nullptr && given(config, older)) {
    FOCAL_ASSIGN_OR_RETURN(const int64_t old_id, config_int(config, older));
    if (id >= 0 && id != old_id) {
      return config_refused(std::string("'") + key + "' is " + std::to_string(id) + " but '" + older + "' is " +
                            std::to_string(old_id) + ": give one");
    }
    id = old_id;
  }
  if (id < -1 || (id == -1 && (given(config, key) || (older != nullptr && given(config, older))))) {
    return config_refused(std::string("'") + key + "' must be a token id (>= 0)");
  }
  return id;
}

// The id the decoder starts from: decoder_start_token_id, else bos_token_id (or our older
// bos_id); the id it stops at: eos_token_id (or eos_id). pad_token_id plays no part.
Status read_tokens(const nlohmann::json& config, const Seq2SeqModel& m, Seq2SeqModel* out) {
  FOCAL_ASSIGN_OR_RETURN(out->max_src, config_int(config, "max_src_len", 64));
  FOCAL_ASSIGN_OR_RETURN(int64_t bos, token_key(config, "bos_token_id", "bos_id"));
  FOCAL_ASSIGN_OR_RETURN(const int64_t start, token_key(config, "decoder_start_token_id", nullptr));
  FOCAL_ASSIGN_OR_RETURN(int64_t eos, token_key(config, "eos_token_id", "eos_id"));
  if (start >= 0) bos = start;
  if (m.names.ours) {  // the historical defaults of our naming
    out->bos_id = bos >= 0 ? bos : 1;
    out->eos_id = eos >= 0 ? eos : 2;
    return Status();
  }
  if (bos < 0) {
    return config_refused("the token the decoder starts from is not in the tensors: give bos_token_id (or "
                          "decoder_start_token_id) with --set bos_token_id=ID or in --config FILE.json");
  }
  if (eos < 0) {
    return config_refused("the token the decoder stops at is not in the tensors: give eos_token_id with "
                          "--set eos_token_id=ID or in --config FILE.json");
  }
  out->bos_id = bos;
  out->eos_id = eos;
  return Status();
}

}  // namespace

Result<Seq2SeqModel> describe_seq2seq(const nlohmann::json& config, WeightSource& weights) {
  Seq2SeqModel m;
  FOCAL_ASSIGN_OR_RETURN(m.names, find_seq2seq_names(weights));
  FOCAL_RETURN_IF_ERROR(read_recurrent_sizes(config, weights, &m));
  FOCAL_RETURN_IF_ERROR(read_vocabularies(config, weights, &m));
  FOCAL_RETURN_IF_ERROR(m.names.ours ? read_our_forms(config, weights, &m) : read_module_forms(config, weights, &m));
  FOCAL_RETURN_IF_ERROR(read_tokens(config, m, &m));
  FOCAL_RETURN_IF_ERROR(check_decoder_start(m));
  return m;
}

}  // namespace convert
}  // namespace focal
