// ModelWriter's op helpers: each records one op kind's operands and options (the
// schema's object API, fb::<Kind>OptionsT) through add_op, packing dense weights and
// converting embedding tables as they go.
#include <cmath>
#include <cstring>

#include "focal/gemm.h"
#include "model_writer.h"
#include "focal/internal/half.h"
#include "focal/internal/int8_row.h"

namespace focal {
namespace {

// Each row by the engine's one row quantizer (focal/internal/int8_row.h): scale = max
// |row| / 127 (0 for an all-zero row, whose q are all 0), symmetric, so 0 stays exactly
// 0 and no offset is needed.
Status quantize_rows(const std::string& name, const std::vector<float>& values, size_t rows, size_t width,
                     std::vector<uint8_t>* bytes, std::vector<float>* scales) {
  bytes->resize(values.size());
  scales->resize(rows);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < width; ++i) {
      const float v = values[r * width + i];
      if (!std::isfinite(v)) {
        return Status::error(StatusCode::kInvalidArgument, "embedding table '%s' row %zu holds %g", name.c_str(), r,
                             static_cast<double>(v));
      }
    }
    (*scales)[r] = quantize_int8_row(values.data() + r * width, width,
                                     reinterpret_cast<int8_t*>(bytes->data() + r * width));
  }
  return Status();
}

// IEEE half bits of f32 `values`; a value past f16's range is an error naming it, never
// a silent infinity.
Status to_half(const std::string& name, const uint8_t* values, size_t count, std::vector<uint8_t>* half) {
  half->resize(count * sizeof(uint16_t));
  for (size_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, values + i * sizeof(float), sizeof(float));
    if (!(std::fabs(value) < 65520.0f)) {  // what rounds to the largest finite half
      return Status::error(StatusCode::kInvalidArgument, "embedding table '%s' element %zu = %g does not fit f16",
                           name.c_str(), i, static_cast<double>(value));
    }
    const uint16_t bits = float_to_half(value);
    std::memcpy(half->data() + i * sizeof(uint16_t), &bits, sizeof(uint16_t));
  }
  return Status();
}

// The options both attention ops share.
template <class AttentionOptionsT>
AttentionOptionsT head_options(int num_heads, int num_kv_heads, int head_dim, bool causal, float scale) {
  AttentionOptionsT options;
  options.num_heads = num_heads;
  options.num_kv_heads = num_kv_heads;
  options.head_dim = head_dim;
  options.causal = causal;
  options.scale = scale;
  return options;
}

}  // namespace

// Packs a row-major f32 [out, in] constant in place; anything else (already packed, a
// non-constant, another dtype or rank) is left for the loader to judge.
void ModelWriter::pack_dense_weight(int weight) {
  if (weight < 0 || static_cast<size_t>(weight) >= tensors_.size()) return;
  TensorSpec& w = tensors_[static_cast<size_t>(weight)];
  if (w.role != TensorRole::kConstant || w.dtype != DType::kF32 || w.dense_packed ||
      w.shape.size() != 2 || w.shape[0] < 1 || w.shape[1] < 1 ||
      w.bytes.size() != static_cast<size_t>(w.shape[0] * w.shape[1]) * sizeof(float)) {
    return;
  }
  const size_t out = static_cast<size_t>(w.shape[0]), in = static_cast<size_t>(w.shape[1]);
  std::vector<float> values(out * in);
  std::memcpy(values.data(), w.bytes.data(), w.bytes.size());
  bool int8_dot = false;
  const DType type = packed_type_of(w.name, &int8_dot);
  const bool int4 = type == DType::kI4;
  std::vector<uint8_t> packed(int8_dot ? packed_dense_weights_int8_dot_bytes(out, in)
                              : int4   ? packed_dense_weights_int4_bytes(out, in, int4_group_)
                                       : packed_dense_weights_bytes(type, out, in));
  auto written = int8_dot ? pack_dense_weights_int8_dot(values.data(), out, in, packed.data(), packed.size())
                 : int4   ? pack_dense_weights_int4(values.data(), out, in, int4_group_, packed.data(), packed.size())
                          : pack_dense_weights(type, values.data(), out, in, packed.data(), packed.size());
  if (!written.ok()) {
    if (error_.ok()) {
      error_ = Status::error(written.status().code(), "weight '%s': %s", w.name.c_str(),
                             written.status().message());
    }
    return;
  }
  w.bytes = std::move(packed);
  w.dtype = type;
  w.dense_packed = true;
  w.int8_dot = int8_dot;
  w.int4_group = int4 ? int4_group_ : 0;
}

void ModelWriter::share_table_with_dense(int table) {
  if (table >= 0 && static_cast<size_t>(table) < tensors_.size()) tied_tables_.insert(tensors_[static_cast<size_t>(table)].name);
  pack_dense_weight(table);
}

DType ModelWriter::packed_type_of(const std::string& weight, bool* int8_dot) const {
  *int8_dot = false;
  if (keep_f32_.count(weight) != 0) return DType::kF32;
  if (dense_weight_type_ == DType::kI4 && tied_tables_.count(weight) != 0) return DType::kI8;
  *int8_dot = int8_activations_ && dense_weight_type_ == DType::kI8 && keep_weight_only_.count(weight) == 0;
  return dense_weight_type_;
}

// An f32 token table converted to the embedding table type: f16 or int8 with per-row
// scales. A failure is kept for finish().
void ModelWriter::store_embedding_table(int table) {
  if (embedding_table_type_ == DType::kF32 || table < 0 || static_cast<size_t>(table) >= tensors_.size()) return;
  TensorSpec& t = tensors_[static_cast<size_t>(table)];
  if (t.role != TensorRole::kConstant || t.dtype != DType::kF32 || t.dense_packed || t.shape.size() != 2) return;
  const size_t count = t.bytes.size() / sizeof(float);
  std::vector<uint8_t> bytes;
  Status converted;
  if (embedding_table_type_ == DType::kI8) {
    std::vector<float> values(count);
    std::memcpy(values.data(), t.bytes.data(), count * sizeof(float));
    converted = quantize_rows(t.name, values, static_cast<size_t>(t.shape[0]), static_cast<size_t>(t.shape[1]),
                              &bytes, &t.row_scales);
  } else {
    converted = to_half(t.name, t.bytes.data(), count, &bytes);
  }
  if (!converted.ok()) {
    if (error_.ok()) error_ = converted;
    return;
  }
  t.bytes = std::move(bytes);
  t.dtype = embedding_table_type_ == DType::kI8 ? DType::kI8 : DType::kF16;
}

void ModelWriter::add_op(const std::string& name, fb::OpOptionsUnion options, std::vector<int32_t> inputs,
                         std::vector<int32_t> outputs) {
  ops_.push_back({name, std::move(options), std::move(inputs), std::move(outputs)});
}

void ModelWriter::add_dense(const std::string& name, int x, int weight, int bias, int y,
                            fb::Activation activation) {
  pack_dense_weight(weight);
  std::vector<int32_t> inputs{x, weight};
  if (bias >= 0) inputs.push_back(bias);
  fb::DenseOptionsT options;
  options.activation = activation;
  add_op(name, options, std::move(inputs), {y});
}

void ModelWriter::add_add(const std::string& name, int a, int b, int y) {
  add_op(name, fb::AddOptionsT(), {a, b}, {y});
}

void ModelWriter::add_layernorm(const std::string& name, int x, int gamma, int beta, int y, float epsilon) {
  fb::LayerNormOptionsT options;
  options.epsilon = epsilon;
  add_op(name, options, {x, gamma, beta}, {y});
}

void ModelWriter::add_softmax(const std::string& name, int x, int y) {
  add_op(name, fb::SoftmaxOptionsT(), {x}, {y});
}

void ModelWriter::add_attention(const std::string& name, int q, int k, int v, int out, int num_heads,
                                int num_kv_heads, int head_dim, bool causal, float scale) {
  add_op(name, head_options<fb::AttentionOptionsT>(num_heads, num_kv_heads, head_dim, causal, scale), {q, k, v},
         {out});
}

void ModelWriter::add_embedding(const std::string& name, int ids, int table, int positions, int type_ids,
                                int segments, int y, float scale) {
  store_embedding_table(table);
  std::vector<int32_t> inputs{ids, table, positions, type_ids, segments};
  while (inputs.size() > 2 && inputs.back() < 0) inputs.pop_back();
  fb::EmbeddingOptionsT options;
  options.scale = scale;
  add_op(name, options, std::move(inputs), {y});
}

void ModelWriter::add_rmsnorm(const std::string& name, int x, int gamma, int y, float epsilon) {
  fb::RmsNormOptionsT options;
  options.epsilon = epsilon;
  add_op(name, options, {x, gamma}, {y});
}

void ModelWriter::add_copy(const std::string& name, int x, int y) { add_op(name, fb::CopyOptionsT(), {x}, {y}); }

void ModelWriter::add_glu(const std::string& name, int x, int y, fb::Activation activation) {
  fb::GluOptionsT options;
  options.activation = activation;
  add_op(name, options, {x}, {y});
}

void ModelWriter::add_pool(const std::string& name, int x, int mask, int y, fb::PoolMode mode) {
  std::vector<int32_t> inputs{x};
  if (mask >= 0) inputs.push_back(mask);
  fb::PoolOptionsT options;
  options.mode = mode;
  add_op(name, options, std::move(inputs), {y});
}

int ModelWriter::apply_kv_cache_type(int state, int kv_heads) {
  if (kv_cache_type_ == DType::kF32 || state < 0 || static_cast<size_t>(state) >= tensors_.size()) return -1;
  TensorSpec& t = tensors_[static_cast<size_t>(state)];
  t.dtype = kv_cache_type_;
  if (kv_cache_type_ != DType::kI8 || t.shape.size() != 3) return -1;
  std::vector<int32_t> symbols = t.dim_symbols;
  if (symbols.size() == 3) symbols[2] = -1;
  const std::vector<int64_t> shape{t.shape[0], t.shape[1], kv_heads};
  return add_state(t.name + ".scales", DType::kF32, shape, std::move(symbols));
}

void ModelWriter::add_multi_head_attention(const std::string& name, const MultiHeadAttentionSpec& s, int y) {
  for (int w : {s.wq, s.wk, s.wv, s.wo}) pack_dense_weight(w);
  auto options =
      head_options<fb::MultiHeadAttentionOptionsT>(s.num_heads, s.num_kv_heads, s.head_dim, s.causal, s.scale);
  options.rope = s.rope;
  options.rope_theta = s.rope_theta;
  options.rotary_dim = s.rotary_dim;
  options.rope_inv_freq = s.rope_inv_freq;
  options.qk_norm_epsilon = s.qk_norm_epsilon;
  std::vector<int32_t> inputs{s.x,  s.wq, s.bq,       s.wk,      s.bk,      s.wv,    s.bv,
                              s.wo, s.bo, s.key_mask, s.k_state, s.v_state, s.memory};
  if (s.k_state >= 0 && s.wk >= 0) {  // a KV cache, stored as set_kv_cache_type says
    const int k_scales = apply_kv_cache_type(s.k_state, s.num_kv_heads);
    const int v_scales = apply_kv_cache_type(s.v_state, s.num_kv_heads);
    if (k_scales >= 0 || v_scales >= 0) inputs.insert(inputs.end(), {k_scales, v_scales});
  }
  if (s.relative_bias >= 0) {
    inputs.resize(15, -1);  // slots 13, 14 (int8 cache scales) absent unless set above
    inputs.push_back(s.relative_bias);
  }
  if (s.q_norm >= 0 || s.k_norm >= 0) {
    inputs.resize(16, -1);  // slots 13 to 15 absent unless set above
    inputs.insert(inputs.end(), {s.q_norm, s.k_norm});
  }
  add_op(name, options, std::move(inputs), {y});
}

void ModelWriter::add_recurrent(const std::string& name, const RecurrentSpec& s, std::vector<int32_t> outputs) {
  for (int w : {s.w_ih, s.w_hh, s.w_ih_r, s.w_hh_r}) pack_dense_weight(w);
  fb::RecurrentOptionsT options;
  options.cell = s.cell;
  options.hidden = s.hidden;
  options.bidirectional = s.w_ih_r >= 0;
  add_op(name, options,
         {s.x, s.mask, s.w_ih, s.w_hh, s.b_ih, s.b_hh, s.w_ih_r, s.w_hh_r, s.b_ih_r, s.b_hh_r, s.h0, s.c0},
         std::move(outputs));
}

void ModelWriter::add_recurrent_step(const std::string& name, fb::RecurrentCell cell, int hidden, int x, int w_ih,
                                     int w_hh, int b_ih, int b_hh, int h_state, int c_state, int y,
                                     bool reset_cell) {
  pack_dense_weight(w_ih);
  pack_dense_weight(w_hh);
  std::vector<int32_t> inputs{x, w_ih, w_hh, b_ih, b_hh, h_state};
  if (c_state >= 0) inputs.push_back(c_state);
  fb::RecurrentStepOptionsT options;
  options.cell = cell;
  options.hidden = hidden;
  options.reset_cell = reset_cell;
  add_op(name, options, std::move(inputs), {y});
}

void ModelWriter::add_score_attention(const std::string& name, fb::ScoreKind kind, float scale, int query,
                                      int keys, int values, int mask, int w, int b, int v, int context,
                                      int weights_out, fb::Activation activation) {
  if (kind == fb::ScoreKind_Additive) pack_dense_weight(w);
  std::vector<int32_t> inputs{query, keys, values, mask, w, b, v};
  while (inputs.size() > 3 && inputs.back() < 0) inputs.pop_back();
  std::vector<int32_t> outputs{context};
  if (weights_out >= 0) outputs.push_back(weights_out);
  fb::ScoreAttentionOptionsT options;
  options.kind = kind;
  options.scale = scale;
  options.activation = activation;
  add_op(name, options, std::move(inputs), std::move(outputs));
}

void ModelWriter::add_concat(const std::string& name, std::vector<int32_t> inputs, int y) {
  add_op(name, fb::ConcatOptionsT(), std::move(inputs), {y});
}

void ModelWriter::add_attention_pool(const std::string& name, int x, int mask, int w, int b, int v, int y,
                                     int weights_out) {
  pack_dense_weight(w);
  std::vector<int32_t> outputs{y};
  if (weights_out >= 0) outputs.push_back(weights_out);
  add_op(name, fb::AttentionPoolOptionsT(), {x, mask, w, b, v}, std::move(outputs));
}

void ModelWriter::add_relative_position_bias(const std::string& name, int x, int table, int rows, int num_buckets,
                                             int max_distance, bool bidirectional) {
  fb::RelativePositionBiasOptionsT options;
  options.num_buckets = num_buckets;
  options.max_distance = max_distance;
  options.bidirectional = bidirectional;
  add_op(name, options, {x, table}, {rows});
}

}  // namespace focal
