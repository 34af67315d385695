#include "model_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "focal/internal/checksum.h"
#include "focal/gemm.h"
#include "focal/internal/graph.h"
#include "plan/planner.h"
#include "focal/internal/half.h"

namespace focal {

// Where every constant and self-test value landed in the data segment.
// The bytes are copied there when the file is assembled; only offsets are decided here.
struct ModelWriter::Layout {
  std::vector<fb::BufferRef> tensor_refs;                   // per tensor (constants only used)
  std::vector<fb::BufferRef> data_refs;                     // where constants' bytes go
  std::vector<std::vector<fb::BufferRef>> test_input_refs;  // per self-test, per value
  std::vector<std::vector<fb::BufferRef>> test_output_refs;
  uint64_t data_size = 0;
};

// The serialized FlatBuffer of a finished file and where its data goes: the file is
// `bytes`, zeros up to data_offset, then the data segment, data_size bytes in all.
struct ModelWriter::Header {
  std::vector<uint8_t> bytes;
  size_t checksum_at = 0;
  size_t data_offset = 0;
  size_t file_size = 0;
  Layout layout;
};

namespace {

fb::BufferRef append_aligned(uint64_t* data_size, size_t bytes) {
  const uint64_t offset = align_up(*data_size, kBufferAlignment);
  *data_size = offset + bytes;
  return fb::BufferRef(offset, bytes);
}

flatbuffers::Offset<fb::Metadata> build_metadata(
    flatbuffers::FlatBufferBuilder& fbb, const std::string& architecture,
    const std::string& producer, const std::string& source,
    const std::vector<std::pair<std::string, std::string>>& hyperparameters) {
  std::vector<flatbuffers::Offset<fb::KeyValue>> pairs;
  for (const auto& kv : hyperparameters) {
    pairs.push_back(fb::CreateKeyValueDirect(fbb, kv.first.c_str(), kv.second.c_str()));
  }
  return fb::CreateMetadataDirect(fbb, architecture.c_str(), producer.c_str(), source.c_str(),
                                  &pairs);
}

// The tokenizer table with its lookup tables; an error for a merge outside the vocabulary.
Result<flatbuffers::Offset<fb::Tokenizer>> build_tokenizer(flatbuffers::FlatBufferBuilder& fbb,
                                                           const TokenizerSpec& spec) {
  std::vector<int32_t> order(spec.vocab.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return spec.vocab[size_t(a)] < spec.vocab[size_t(b)]; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (spec.vocab[size_t(order[i])] == spec.vocab[size_t(order[i - 1])]) {
      return Status::error(StatusCode::kInvalidArgument, "tokenizer vocabulary has '%s' twice",
                           spec.vocab[size_t(order[i])].c_str());
    }
  }
  const auto id_of = [&](const std::string& s) -> int32_t {
    auto it = std::lower_bound(order.begin(), order.end(), s,
                               [&](int32_t id, const std::string& v) { return spec.vocab[size_t(id)] < v; });
    return it != order.end() && spec.vocab[size_t(*it)] == s ? *it : -1;
  };
  std::vector<fb::MergeRule> rules;
  std::vector<std::string> merge_text;
  for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
    const auto& m = spec.merges[rank];
    const int32_t left = id_of(m.first), right = id_of(m.second), merged = id_of(m.first + m.second);
    if (left < 0 || right < 0 || merged < 0) {
      return Status::error(StatusCode::kInvalidArgument, "BPE merge %zu '%s %s' uses tokens outside the vocabulary",
                           rank, m.first.c_str(), m.second.c_str());
    }
    rules.emplace_back(left, right, merged, static_cast<int32_t>(rank));
    merge_text.push_back(m.first + " " + m.second);
  }
  std::sort(rules.begin(), rules.end(), [](const fb::MergeRule& a, const fb::MergeRule& b) {
    if (a.left() != b.left()) return a.left() < b.left();
    return a.right() != b.right() ? a.right() < b.right() : a.rank() < b.rank();
  });
  // A pair listed twice keeps its first (lowest) rank, as GPT-2's merges dictionary does.
  rules.erase(std::unique(rules.begin(), rules.end(),
                          [](const fb::MergeRule& a, const fb::MergeRule& b) {
                            return a.left() == b.left() && a.right() == b.right();
                          }),
              rules.end());
  std::vector<flatbuffers::Offset<flatbuffers::String>> vocab, merges;
  for (const std::string& s : spec.vocab) vocab.push_back(fbb.CreateString(s));
  for (const std::string& s : merge_text) merges.push_back(fbb.CreateString(s));
  return fb::CreateTokenizer(fbb, spec.kind, fbb.CreateVector(vocab),
                             spec.scores.empty() ? 0 : fbb.CreateVector(spec.scores),
                             merges.empty() ? 0 : fbb.CreateVector(merges),
                             spec.unk_id, spec.bos_id, spec.eos_id, spec.pad_id, fbb.CreateVector(order),
                             spec.kind == fb::TokenizerKind_ByteLevelBpe ? fbb.CreateVectorOfStructs(rules) : 0,
                             spec.lowercase);
}

}  // namespace

int ModelWriter::add_symbol(const std::string& name, int64_t max) {
  symbols_.emplace_back(name, max);
  return static_cast<int>(symbols_.size()) - 1;
}

int ModelWriter::add_tensor(TensorSpec spec) {
  tensors_.push_back(std::move(spec));
  return static_cast<int>(tensors_.size()) - 1;
}

int ModelWriter::add_input(const std::string& name, DType dtype, std::vector<int64_t> shape,
                           std::vector<int32_t> dim_symbols) {
  return add_tensor(
      {name, dtype, TensorRole::kInput, std::move(shape), std::move(dim_symbols), {}});
}

int ModelWriter::add_output(const std::string& name, DType dtype, std::vector<int64_t> shape,
                            std::vector<int32_t> dim_symbols) {
  return add_tensor(
      {name, dtype, TensorRole::kOutput, std::move(shape), std::move(dim_symbols), {}});
}

int ModelWriter::add_activation(const std::string& name, DType dtype, std::vector<int64_t> shape,
                                std::vector<int32_t> dim_symbols) {
  return add_tensor(
      {name, dtype, TensorRole::kActivation, std::move(shape), std::move(dim_symbols), {}});
}

int ModelWriter::add_state(const std::string& name, DType dtype, std::vector<int64_t> shape,
                           std::vector<int32_t> dim_symbols) {
  return add_tensor(
      {name, dtype, TensorRole::kState, std::move(shape), std::move(dim_symbols), {}});
}

int ModelWriter::add_constant(const std::string& name, DType dtype, std::vector<int64_t> shape,
                              std::vector<uint8_t> bytes) {
  return add_tensor({name, dtype, TensorRole::kConstant, std::move(shape), {}, std::move(bytes)});
}

int ModelWriter::add_constant_f32(const std::string& name, std::vector<int64_t> shape,
                                  const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return add_constant(name, DType::kF32, std::move(shape), std::move(bytes));
}

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
  std::vector<uint8_t> packed(packed_dense_weights_bytes(dense_weight_type_, out, in));
  auto written = pack_dense_weights(dense_weight_type_, values.data(), out, in, packed.data(), packed.size());
  if (!written.ok()) {
    if (error_.ok()) error_ = written.status();
    return;
  }
  w.bytes = std::move(packed);
  w.dtype = dense_weight_type_;
  w.dense_packed = true;
}

void ModelWriter::add_dense(const std::string& name, int x, int weight, int bias, int y,
                            fb::Activation activation) {
  pack_dense_weight(weight);
  OpSpec op{name, fb::OpOptions_DenseOptions, {x, weight}, {y}};
  if (bias >= 0) op.inputs.push_back(bias);
  op.activation = activation;
  ops_.push_back(op);
}

void ModelWriter::add_add(const std::string& name, int a, int b, int y) {
  ops_.push_back({name, fb::OpOptions_AddOptions, {a, b}, {y}});
}

void ModelWriter::add_layernorm(const std::string& name, int x, int gamma, int beta, int y,
                                float epsilon) {
  OpSpec op{name, fb::OpOptions_LayerNormOptions, {x, gamma, beta}, {y}};
  op.epsilon = epsilon;
  ops_.push_back(op);
}

void ModelWriter::add_softmax(const std::string& name, int x, int y) {
  ops_.push_back({name, fb::OpOptions_SoftmaxOptions, {x}, {y}});
}

void ModelWriter::add_attention(const std::string& name, int q, int k, int v, int out,
                                int num_heads, int num_kv_heads, int head_dim, bool causal,
                                float scale) {
  OpSpec op{name, fb::OpOptions_AttentionOptions, {q, k, v}, {out}};
  op.num_heads = num_heads;
  op.num_kv_heads = num_kv_heads;
  op.head_dim = head_dim;
  op.causal = causal;
  op.scale = scale;
  ops_.push_back(op);
}

namespace {

// q = round(w / scale) with scale = max |row| / 127 per row (1 for an all-zero row, whose
// q are all 0): symmetric, so 0 stays exactly 0 and no offset is needed.
Status quantize_rows(const std::string& name, const std::vector<float>& values, size_t rows, size_t width,
                     std::vector<uint8_t>* bytes, std::vector<float>* scales) {
  bytes->resize(values.size());
  scales->resize(rows);
  for (size_t r = 0; r < rows; ++r) {
    float largest = 0.0f;
    for (size_t i = 0; i < width; ++i) {
      const float v = values[r * width + i];
      if (!std::isfinite(v)) {
        return Status::error(StatusCode::kInvalidArgument, "embedding table '%s' row %zu holds %g", name.c_str(), r,
                             static_cast<double>(v));
      }
      largest = std::max(largest, std::fabs(v));
    }
    const float scale = largest > 0.0f ? largest / 127.0f : 1.0f;
    (*scales)[r] = scale;
    for (size_t i = 0; i < width; ++i) {
      const long q = std::lround(values[r * width + i] / scale);
      (*bytes)[r * width + i] = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(q, -127L, 127L)));
    }
  }
  return Status();
}

}  // namespace

// An f32 token table converted to the embedding table type: f16 (a value past f16's range
// is an error naming it, never a silent infinity) or int8 with per-row scales.
void ModelWriter::store_embedding_table(int table) {
  if (embedding_table_type_ == DType::kF32 || table < 0 || static_cast<size_t>(table) >= tensors_.size()) return;
  TensorSpec& t = tensors_[static_cast<size_t>(table)];
  if (t.role != TensorRole::kConstant || t.dtype != DType::kF32 || t.dense_packed || t.shape.size() != 2) return;
  const size_t count = t.bytes.size() / sizeof(float);
  if (embedding_table_type_ == DType::kI8) {
    std::vector<float> values(count);
    std::memcpy(values.data(), t.bytes.data(), count * sizeof(float));
    std::vector<uint8_t> bytes;
    const Status quantized = quantize_rows(t.name, values, static_cast<size_t>(t.shape[0]),
                                           static_cast<size_t>(t.shape[1]), &bytes, &t.row_scales);
    if (!quantized.ok()) {
      if (error_.ok()) error_ = quantized;
      return;
    }
    t.bytes = std::move(bytes);
    t.dtype = DType::kI8;
    return;
  }
  std::vector<uint8_t> half(count * sizeof(uint16_t));
  for (size_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, t.bytes.data() + i * sizeof(float), sizeof(float));
    if (!(std::fabs(value) < 65520.0f)) {  // what rounds to the largest finite half
      if (error_.ok()) {
        error_ = Status::error(StatusCode::kInvalidArgument, "embedding table '%s' element %zu = %g does not fit f16",
                               t.name.c_str(), i, static_cast<double>(value));
      }
      return;
    }
    const uint16_t bits = float_to_half(value);
    std::memcpy(half.data() + i * sizeof(uint16_t), &bits, sizeof(uint16_t));
  }
  t.bytes = std::move(half);
  t.dtype = DType::kF16;
}

void ModelWriter::add_embedding(const std::string& name, int ids, int table, int positions,
                                int type_ids, int segments, int y, float scale) {
  store_embedding_table(table);
  OpSpec op{name, fb::OpOptions_EmbeddingOptions, {ids, table, positions, type_ids, segments}, {y}};
  while (op.inputs.size() > 2 && op.inputs.back() < 0) op.inputs.pop_back();
  op.scale = scale;
  ops_.push_back(op);
}

void ModelWriter::add_rmsnorm(const std::string& name, int x, int gamma, int y, float epsilon) {
  OpSpec op{name, fb::OpOptions_RmsNormOptions, {x, gamma}, {y}};
  op.epsilon = epsilon;
  ops_.push_back(op);
}

void ModelWriter::add_copy(const std::string& name, int x, int y) {
  ops_.push_back({name, fb::OpOptions_CopyOptions, {x}, {y}});
}

void ModelWriter::add_glu(const std::string& name, int x, int y, fb::Activation activation) {
  OpSpec op{name, fb::OpOptions_GluOptions, {x}, {y}};
  op.activation = activation;
  ops_.push_back(op);
}

void ModelWriter::add_pool(const std::string& name, int x, int mask, int y, fb::PoolMode mode) {
  OpSpec op{name, fb::OpOptions_PoolOptions, {x}, {y}};
  if (mask >= 0) op.inputs.push_back(mask);
  op.pool = mode;
  ops_.push_back(op);
}

void ModelWriter::add_multi_head_attention(const std::string& name,
                                           const MultiHeadAttentionSpec& s, int y) {
  for (int w : {s.wq, s.wk, s.wv, s.wo}) pack_dense_weight(w);
  OpSpec op{name,
            fb::OpOptions_MultiHeadAttentionOptions,
            {s.x, s.wq, s.bq, s.wk, s.bk, s.wv, s.bv, s.wo, s.bo, s.key_mask, s.k_state, s.v_state,
             s.memory},
            {y}};
  op.num_heads = s.num_heads;
  op.num_kv_heads = s.num_kv_heads;
  op.head_dim = s.head_dim;
  op.causal = s.causal;
  op.scale = s.scale;
  op.rope = s.rope;
  op.rope_theta = s.rope_theta;
  op.rotary_dim = s.rotary_dim;
  ops_.push_back(op);
}

void ModelWriter::add_recurrent(const std::string& name, const RecurrentSpec& s,
                                std::vector<int32_t> outputs) {
  for (int w : {s.w_ih, s.w_hh, s.w_ih_r, s.w_hh_r}) pack_dense_weight(w);
  OpSpec op{name,
            fb::OpOptions_RecurrentOptions,
            {s.x, s.mask, s.w_ih, s.w_hh, s.b_ih, s.b_hh, s.w_ih_r, s.w_hh_r, s.b_ih_r, s.b_hh_r, s.h0, s.c0},
            std::move(outputs)};
  op.cell = s.cell;
  op.hidden = s.hidden;
  op.bidirectional = s.w_ih_r >= 0;
  ops_.push_back(op);
}

void ModelWriter::add_recurrent_step(const std::string& name, fb::RecurrentCell cell, int hidden, int x,
                                     int w_ih, int w_hh, int b_ih, int b_hh, int h_state, int c_state, int y) {
  pack_dense_weight(w_ih);
  pack_dense_weight(w_hh);
  OpSpec op{name, fb::OpOptions_RecurrentStepOptions, {x, w_ih, w_hh, b_ih, b_hh, h_state}, {y}};
  if (c_state >= 0) op.inputs.push_back(c_state);
  op.cell = cell;
  op.hidden = hidden;
  ops_.push_back(op);
}

void ModelWriter::add_score_attention(const std::string& name, fb::ScoreKind kind, float scale, int query,
                                      int keys, int values, int mask, int w, int b, int v, int context,
                                      int weights_out) {
  if (kind == fb::ScoreKind_Additive) pack_dense_weight(w);
  OpSpec op{name, fb::OpOptions_ScoreAttentionOptions, {query, keys, values, mask, w, b, v}, {context}};
  while (op.inputs.size() > 3 && op.inputs.back() < 0) op.inputs.pop_back();
  if (weights_out >= 0) op.outputs.push_back(weights_out);
  op.score = kind;
  op.scale = scale;
  ops_.push_back(op);
}

void ModelWriter::add_concat(const std::string& name, std::vector<int32_t> inputs, int y) {
  ops_.push_back({name, fb::OpOptions_ConcatOptions, std::move(inputs), {y}});
}

void ModelWriter::add_attention_pool(const std::string& name, int x, int mask, int w, int b, int v, int y,
                                     int weights_out) {
  pack_dense_weight(w);
  OpSpec op{name, fb::OpOptions_AttentionPoolOptions, {x, mask, w, b, v}, {y}};
  if (weights_out >= 0) op.outputs.push_back(weights_out);
  ops_.push_back(op);
}

void ModelWriter::begin_stage(const std::string& name) {
  stages_.emplace_back(name, static_cast<int>(ops_.size()));
}

void ModelWriter::set_metadata(const std::string& architecture, const std::string& producer,
                               const std::string& source) {
  architecture_ = architecture;
  producer_ = producer;
  source_ = source;
}

void ModelWriter::add_hyperparameter(const std::string& key, const std::string& value) {
  hyperparameters_.emplace_back(key, value);
}

void ModelWriter::add_self_test(SelfTestSpec test) { self_tests_.push_back(std::move(test)); }

void ModelWriter::make_output(int tensor) {
  if (tensor >= 0 && static_cast<size_t>(tensor) < tensors_.size() &&
      tensors_[static_cast<size_t>(tensor)].role == TensorRole::kActivation) {
    tensors_[static_cast<size_t>(tensor)].role = TensorRole::kOutput;
  }
}

int ModelWriter::find_tensor(const std::string& name) const {
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (tensors_[t].name == name) return static_cast<int>(t);
  }
  return -1;
}

ModelWriter::Layout ModelWriter::lay_out_data(const WriteOptions& options) const {
  Layout layout;
  layout.tensor_refs.resize(tensors_.size());
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TensorSpec& spec = tensors_[t];
    if (spec.role == TensorRole::kConstant) {
      layout.tensor_refs[t] =
          append_aligned(&layout.data_size, spec.moved != nullptr ? spec.moved_size : spec.bytes.size());
    }
  }
  layout.data_refs = layout.tensor_refs;
  for (const SelfTestSpec& test : self_tests_) {
    layout.test_input_refs.emplace_back();
    layout.test_output_refs.emplace_back();
    for (const auto& v : test.inputs) {
      layout.test_input_refs.back().push_back(append_aligned(&layout.data_size, v.bytes.size()));
    }
    for (const auto& v : test.expected_outputs) {
      layout.test_output_refs.back().push_back(append_aligned(&layout.data_size, v.bytes.size()));
    }
  }
  for (const auto& o : options.data_ref_overrides) layout.tensor_refs[o.first] = o.second;
  return layout;
}

std::vector<uint8_t> ModelWriter::serialize(const Layout& layout,
                                            const std::vector<uint64_t>& arena_offsets,
                                            uint64_t arena_bytes, uint32_t version) const {
  flatbuffers::FlatBufferBuilder fbb(4096);
  std::vector<flatbuffers::Offset<fb::Symbol>> symbols;
  for (const auto& s : symbols_)
    symbols.push_back(fb::CreateSymbolDirect(fbb, s.first.c_str(), s.second));

  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TensorSpec& spec = tensors_[t];
    const bool constant = spec.role == TensorRole::kConstant;
    const auto quantization =
        spec.row_scales.empty() ? 0 : fb::CreateQuantizationDirect(fbb, &spec.row_scales, /*axis=*/0);
    tensors.push_back(fb::CreateTensorDirect(
        fbb, spec.name.c_str(), static_cast<fb::DType>(spec.dtype),
        static_cast<fb::TensorRole>(spec.role), &spec.shape,
        spec.dim_symbols.empty() ? nullptr : &spec.dim_symbols,
        constant ? &layout.tensor_refs[t] : nullptr, quantization, constant ? 0 : arena_offsets[t],
        spec.dense_packed ? fb::TensorLayout_DensePacked : fb::TensorLayout_RowMajor));
  }

  std::vector<flatbuffers::Offset<fb::Op>> ops;
  std::vector<int32_t> inputs, outputs;
  for (const OpSpec& op : ops_) {
    flatbuffers::Offset<void> options;
    switch (op.type) {
      case fb::OpOptions_DenseOptions:
        options = fb::CreateDenseOptions(fbb, op.activation).Union();
        break;
      case fb::OpOptions_AddOptions:
        options = fb::CreateAddOptions(fbb).Union();
        break;
      case fb::OpOptions_LayerNormOptions:
        options = fb::CreateLayerNormOptions(fbb, op.epsilon).Union();
        break;
      case fb::OpOptions_SoftmaxOptions:
        options = fb::CreateSoftmaxOptions(fbb).Union();
        break;
      case fb::OpOptions_AttentionOptions:
        options = fb::CreateAttentionOptions(fbb, op.num_heads, op.num_kv_heads, op.head_dim,
                                             op.causal, op.scale)
                      .Union();
        break;
      case fb::OpOptions_EmbeddingOptions:
        options = fb::CreateEmbeddingOptions(fbb, op.scale).Union();
        break;
      case fb::OpOptions_RmsNormOptions:
        options = fb::CreateRmsNormOptions(fbb, op.epsilon).Union();
        break;
      case fb::OpOptions_RecurrentOptions:
        options = fb::CreateRecurrentOptions(fbb, op.cell, op.hidden, op.bidirectional).Union();
        break;
      case fb::OpOptions_RecurrentStepOptions:
        options = fb::CreateRecurrentStepOptions(fbb, op.cell, op.hidden).Union();
        break;
      case fb::OpOptions_ScoreAttentionOptions:
        options = fb::CreateScoreAttentionOptions(fbb, op.score, op.scale).Union();
        break;
      case fb::OpOptions_ConcatOptions:
        options = fb::CreateConcatOptions(fbb).Union();
        break;
      case fb::OpOptions_AttentionPoolOptions:
        options = fb::CreateAttentionPoolOptions(fbb).Union();
        break;
      case fb::OpOptions_CopyOptions:
        options = fb::CreateCopyOptions(fbb).Union();
        break;
      case fb::OpOptions_GluOptions:
        options = fb::CreateGluOptions(fbb, op.activation).Union();
        break;
      case fb::OpOptions_PoolOptions:
        options = fb::CreatePoolOptions(fbb, op.pool).Union();
        break;
      case fb::OpOptions_MultiHeadAttentionOptions:
        options = fb::CreateMultiHeadAttentionOptions(fbb, op.num_heads, op.num_kv_heads,
                                                      op.head_dim, op.causal, op.scale, op.rope,
                                                      op.rope_theta, op.rotary_dim)
                      .Union();
        break;
      default:
        break;
    }
    ops.push_back(
        fb::CreateOpDirect(fbb, op.name.c_str(), op.type, options, &op.inputs, &op.outputs));
  }
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (tensors_[t].role == TensorRole::kInput) inputs.push_back(static_cast<int32_t>(t));
    if (tensors_[t].role == TensorRole::kOutput) outputs.push_back(static_cast<int32_t>(t));
  }

  std::vector<flatbuffers::Offset<fb::SelfTestCase>> tests;
  for (size_t i = 0; i < self_tests_.size(); ++i) {
    const auto values = [&](const std::vector<TensorValueSpec>& specs,
                            const std::vector<fb::BufferRef>& refs) {
      std::vector<flatbuffers::Offset<fb::TensorValue>> out;
      for (size_t v = 0; v < specs.size(); ++v) {
        out.push_back(fb::CreateTensorValueDirect(fbb, specs[v].tensor, &specs[v].shape, &refs[v]));
      }
      return out;
    };
    const auto test_inputs = values(self_tests_[i].inputs, layout.test_input_refs[i]);
    const auto test_outputs = values(self_tests_[i].expected_outputs, layout.test_output_refs[i]);
    tests.push_back(fb::CreateSelfTestCaseDirect(fbb, &test_inputs, &test_outputs,
                                                 self_tests_[i].atol, self_tests_[i].rtol));
  }

  const fb::Checksum checksum(0);  // stamped after the whole file is assembled
  const auto plan = fb::CreateMemoryPlan(fbb, arena_bytes, static_cast<uint32_t>(kBufferAlignment));
  const auto metadata = build_metadata(fbb, architecture_, producer_, source_, hyperparameters_);
  std::vector<flatbuffers::Offset<fb::Stage>> stages;
  for (size_t s = 0; s < stages_.size(); ++s) {
    const int end = s + 1 < stages_.size() ? stages_[s + 1].second : static_cast<int>(ops_.size());
    stages.push_back(fb::CreateStageDirect(fbb, stages_[s].first.c_str(), stages_[s].second,
                                           end - stages_[s].second));
  }
  // Checked by finish() before serializing, so these cannot fail here.
  const auto tokenizer = tokenizer_.kind != fb::TokenizerKind_None ? build_tokenizer(fbb, tokenizer_).value()
                                                                    : flatbuffers::Offset<fb::Tokenizer>();
  const auto target_tokenizer = target_tokenizer_.kind != fb::TokenizerKind_None
                                    ? build_tokenizer(fbb, target_tokenizer_).value()
                                    : flatbuffers::Offset<fb::Tokenizer>();
  const auto root = fb::CreateModelDirect(fbb, version, &checksum, &symbols, &tensors, &ops,
                                          &inputs, &outputs, plan, metadata, tokenizer, &tests,
                                          stages_.empty() ? nullptr : &stages, target_tokenizer);
  fb::FinishSizePrefixedModelBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

bool ModelWriter::operands_in_range() const {
  for (const OpSpec& op : ops_) {
    for (int32_t t : op.inputs)  // -1: an absent optional operand, judged by the loader
      if (t < -1 || (t >= 0 && static_cast<size_t>(t) >= tensors_.size())) return false;
    for (int32_t t : op.outputs)
      if (t < 0 || static_cast<size_t>(t) >= tensors_.size()) return false;
  }
  return true;
}

Result<ModelWriter::Header> ModelWriter::serialize_header(const WriteOptions& options) const {
  if (!error_.ok()) return error_;
  for (const TokenizerSpec* spec : {&tokenizer_, &target_tokenizer_}) {
    if (spec->kind == fb::TokenizerKind_None) continue;
    flatbuffers::FlatBufferBuilder probe;
    const auto built = build_tokenizer(probe, *spec);
    if (!built.ok()) return built.status();
  }
  Header header;
  header.layout = lay_out_data(options);
  const Layout& layout = header.layout;
  std::vector<uint64_t> offsets(tensors_.size(), 0);

  // Plan on a first serialization, so lifetimes come from the engine's own reading of
  // the graph. A graph with dangling operands has no lifetimes: every tensor then gets
  // bytes of its own, and the loader will name the dangling operand.
  const std::vector<uint8_t> draft = serialize(layout, offsets, 0, options.version);
  const fb::Model& model = *fb::GetSizePrefixedModel(draft.data());
  const int32_t op_count = static_cast<int32_t>(ops_.size());
  std::vector<Lifetime> lifetimes(tensors_.size(), Lifetime{-1, op_count});
  if (operands_in_range()) compute_lifetimes(model, lifetimes.data());
  std::vector<PlanItem> items(tensors_.size());
  for (size_t t = 0; t < tensors_.size(); ++t) {
    uint64_t bytes = 0;
    const bool planned = tensors_[t].role != TensorRole::kConstant &&
                         tensor_max_bytes(*model.tensors()->Get(static_cast<uint32_t>(t)), &bytes);
    items[t] = {planned ? bytes : 0, lifetimes[t]};
  }
  std::vector<int32_t> order(tensors_.size());
  const uint64_t arena_bytes = plan_arena(items.data(), static_cast<int32_t>(items.size()),
                                          kBufferAlignment, offsets.data(), order.data());
  for (const auto& o : options.arena_offset_overrides) offsets[o.first] = o.second;

  header.bytes = serialize(layout, offsets, options.arena_bytes_override != 0 ? options.arena_bytes_override : arena_bytes,
                           options.version);
  header.checksum_at = static_cast<size_t>(
      reinterpret_cast<const uint8_t*>(fb::GetSizePrefixedModel(header.bytes.data())->checksum()) -
      header.bytes.data());
  header.data_offset = static_cast<size_t>(data_segment_offset(header.bytes.size()));
  if (layout.data_size > std::numeric_limits<size_t>::max() - header.data_offset) {  // 32-bit hosts
    return Status::error(StatusCode::kResourceExhausted, "the model's %llu data bytes do not fit this machine's memory",
                         static_cast<unsigned long long>(layout.data_size));
  }
  header.file_size = header.data_offset + static_cast<size_t>(layout.data_size);
  return header;
}

void ModelWriter::write_test_values(const Header& header, uint8_t* file) const {
  uint8_t* data = file + header.data_offset;
  for (size_t i = 0; i < self_tests_.size(); ++i) {
    const auto copy = [&](const std::vector<TensorValueSpec>& values, const std::vector<fb::BufferRef>& refs) {
      for (size_t v = 0; v < values.size(); ++v) {
        if (!values[v].bytes.empty()) std::memcpy(data + refs[v].offset(), values[v].bytes.data(), values[v].bytes.size());
      }
    };
    copy(self_tests_[i].inputs, header.layout.test_input_refs[i]);
    copy(self_tests_[i].expected_outputs, header.layout.test_output_refs[i]);
  }
}

namespace {

void stamp_checksum(uint8_t* file, size_t size, size_t checksum_at) {
  const uint32_t crc = crc32_skipping(file, size, checksum_at);
  std::memcpy(file + checksum_at, &crc, sizeof(crc));  // little-endian, as FlatBuffers
}

}  // namespace

Result<std::vector<uint8_t>> ModelWriter::finish(const WriteOptions& options) const {
  Result<Header> header = serialize_header(options);
  if (!header.ok()) return header.status();
  std::vector<uint8_t> file(header->file_size, 0);
  std::memcpy(file.data(), header->bytes.data(), header->bytes.size());
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TensorSpec& spec = tensors_[t];
    if (spec.role != TensorRole::kConstant) continue;
    const uint8_t* bytes = spec.moved != nullptr ? spec.moved : spec.bytes.data();
    const size_t size = spec.moved != nullptr ? spec.moved_size : spec.bytes.size();
    if (size > 0) std::memcpy(file.data() + header->data_offset + header->layout.data_refs[t].offset(), bytes, size);
  }
  write_test_values(header.value(), file.data());
  stamp_checksum(file.data(), file.size(), header->checksum_at);
  return file;
}

Result<std::vector<uint8_t>> ModelWriter::header(size_t* file_size) const {
  Result<Header> header = serialize_header(WriteOptions());
  if (!header.ok()) return header.status();
  *file_size = header->file_size;
  return std::move(header->bytes);
}

Result<FileBuffer> ModelWriter::finish_moving_constants(FileBuffer* previous) {
  Result<Header> header = serialize_header(WriteOptions());
  if (!header.ok()) return header.status();
  Result<FileBuffer> file = FileBuffer::allocate(header->file_size);
  if (!file.ok()) return file.status();
  uint8_t* const out = file->data();
  std::memcpy(out, header->bytes.data(), header->bytes.size());
  constexpr size_t kTrimEvery = size_t(32) << 20;  // bytes freed between handing memory back
  size_t freed = 0;
  for (size_t t = 0; t < tensors_.size(); ++t) {
    TensorSpec& spec = tensors_[t];
    if (spec.role != TensorRole::kConstant) continue;
    uint8_t* const at = out + header->data_offset + header->layout.data_refs[t].offset();
    if (spec.moved != nullptr && previous != nullptr && previous->contains(spec.moved)) {
      copy_releasing(*previous, static_cast<size_t>(spec.moved - previous->data()), spec.moved_size, at);
    } else if (spec.moved != nullptr) {
      std::memcpy(at, spec.moved, spec.moved_size);
    } else {
      if (!spec.bytes.empty()) std::memcpy(at, spec.bytes.data(), spec.bytes.size());
      spec.moved_size = spec.bytes.size();
      std::vector<uint8_t>().swap(spec.bytes);  // frees the writer's copy now
      freed += spec.moved_size;
      if (freed >= kTrimEvery) {
        return_freed_memory();
        freed = 0;
      }
    }
    spec.moved = at;
  }
  write_test_values(header.value(), out);
  stamp_checksum(out, file->size(), header->checksum_at);
  return_freed_memory();
  return file;
}

}  // namespace focal
