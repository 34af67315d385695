// Writes .focal files: the one writer that the converter, the test helpers and the
// benchmarks all use, so every model on disk is laid out by the same code. It plans
// the arena with the engine's own planner and stamps the checksum the loader checks.
//
// The writer records what it is told; it does not judge it. Meaning is checked by
// loading the result with focal::Model::from_bytes (the converter always does), which
// lets tests write deliberately broken files through the normal path.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "file_buffer.h"
#include "focal/model.h"
#include "focal/status.h"
#include "focal/tensor.h"
#include "focal_generated.h"
#include "writer/tokenizer_table.h"

namespace focal {

struct TensorValueSpec {
  int tensor;
  std::vector<int64_t> shape;  // actual shape, <= planned
  std::vector<uint8_t> bytes;
};

struct SelfTestSpec {
  std::vector<TensorValueSpec> inputs;
  std::vector<TensorValueSpec> expected_outputs;
  float atol = 0.0f;
  float rtol = 0.0f;
};

// Ways to bend the output, for tests of the loader's defences.
struct WriteOptions {
  uint32_t version = kFormatVersion;
  // Replace a constant's data reference after layout: {tensor index, {offset, size}}.
  std::vector<std::pair<int, fb::BufferRef>> data_ref_overrides;
  // Replace a planned tensor's arena offset after planning.
  std::vector<std::pair<int, uint64_t>> arena_offset_overrides;
  // Replace the plan's arena size (0: keep the planned one).
  uint64_t arena_bytes_override = 0;
};

class ModelWriter {
 public:
  int add_symbol(const std::string& name, int64_t max);

  // `dim_symbols`: empty for all-fixed dims, else one entry per dim, -1 or a symbol.
  int add_input(const std::string& name, DType dtype, std::vector<int64_t> shape,
                std::vector<int32_t> dim_symbols = {});
  // Makes input `tensor` optional: a run the caller leaves it unset for fills it with
  // `fill` (1 or 0) at the dims the other inputs set (fb::WhenAbsent).
  void set_absent_fill(int tensor, int fill);
  int add_output(const std::string& name, DType dtype, std::vector<int64_t> shape,
                 std::vector<int32_t> dim_symbols = {});
  int add_activation(const std::string& name, DType dtype, std::vector<int64_t> shape,
                     std::vector<int32_t> dim_symbols = {});
  // Kept across runs (KV caches, cross-attention keys and values).
  int add_state(const std::string& name, DType dtype, std::vector<int64_t> shape,
                std::vector<int32_t> dim_symbols = {});
  int add_constant(const std::string& name, DType dtype, std::vector<int64_t> shape,
                   std::vector<uint8_t> bytes);
  int add_constant_f32(const std::string& name, std::vector<int64_t> shape,
                       const std::vector<float>& values);
  // An int8 tensor's quantization (schema Quantization, axis 0): a constant's scales, one
  // per row (symmetric, no zero points); an int8 activation's one scale and one zero
  // point (static int8, issue 36).
  void set_quantization(int tensor, std::vector<float> scales, std::vector<int64_t> zero_points = {});

  // Dense weights: a row-major f32 [out, in] constant given to add_dense is packed into
  // the GEMM kernels' layout (focal/gemm.h, pack_dense_weights) stored as this type:
  // kF32 (the default), kF16, kBF16 or kI8 (per-output scales). Applies to later calls.
  // kI4: int4 in groups of set_int4_group() k (TensorLayout DenseInt4, focal/gemm.h); its
  // op always quantizes the input rows to int8.
  void set_dense_weight_type(DType type) { dense_weight_type_ = type; }
  void set_int4_group(size_t group) { int4_group_ = group; }
  // Embedding token tables given to add_embedding: kF32 (the default), kF16 (IEEE half,
  // rounded to nearest even: half the flash of the usually largest tensor) or kI8 (one
  // symmetric scale per row, max |row| / 127: a quarter). Position and segment tables stay
  // f32. Applies to later calls.
  void set_embedding_table_type(DType type) { embedding_table_type_ = type; }
  // A tied LM head, stored once: packs f32 constant [vocab, d] `table` now as a Dense
  // weight (as add_dense would: the dense weight type, int8 activations and the keep
  // sets as set so far), so the Embedding op that takes it as its token table and the
  // Dense op that takes it as its weight read the same tensor (the gather reads rows out
  // of the packed panels). The embedding table type does not apply to it. Under int4
  // weights the shared table is int8 (per-row scales): the gather reads the int8 layouts,
  // and a 4-bit token table and output head cost the most accuracy per byte saved.
  void share_table_with_dense(int table);
  // Whether a tied table is stored once: with float dense weights (f32, f16, bf16: the
  // gather reads the head's exact values), or quantized weights with an int8 embedding
  // table type (the user accepted int8 token rows). With quantized weights and a float
  // table, quantizing the token rows would change every input embedding (the bundled
  // story model's greedy text then departs from f32's after 53 of 64 tokens on one demo
  // prompt), so the table stays as set_embedding_table_type says and the head is a copy.
  bool shares_tied_tables() const {
    const bool float_weights = dense_weight_type_ == DType::kF32 || dense_weight_type_ == DType::kF16 ||
                               dense_weight_type_ == DType::kBF16;
    return float_weights || embedding_table_type_ == DType::kI8;
  }
  // KV caches of later add_multi_head_attention calls (states with wk/wv): kF32 (the
  // default), kF16 or kI8 (the states change dtype, and each gets an f32 scale state
  // "<state>.scales" [batch, context, kv heads], slots 13 and 14 in schema/focal.fbs).
  void set_kv_cache_type(DType type) { kv_cache_type_ = type; }
  // Int8 activations (W8A8). When on and the dense weight type is kI8, each dense weight
  // packed by later calls (add_dense, add_multi_head_attention, add_recurrent,
  // add_recurrent_step, add_score_attention, add_attention_pool) is stored in the int8-dot
  // layout (TensorLayout DenseInt8Dot, focal/gemm.h): its op quantizes the input rows
  // to int8 at run time, one scale per row, and multiplies on the integer dot-product
  // instructions. Off by default; with another weight type it changes nothing.
  void set_int8_activations(bool on) { int8_activations_ = on; }
  // Weights (tensor names as given to add_constant) exempt from int8 activations: kept
  // as weight-only int8 (DensePacked i8, f32 activations) by keep_weight_only, as f32
  // (DensePacked f32) by keep_f32, whatever the dense weight type. Each call replaces
  // its set; a name in both is kept f32. Apply to weights packed by later calls.
  void keep_weight_only(std::set<std::string> names) { keep_weight_only_ = std::move(names); }
  void keep_f32(std::set<std::string> names) { keep_f32_ = std::move(names); }

  // Ops, in execution order. Tensor arguments are indices from the add_* calls; an
  // absent optional operand is -1. Any op kind: its options as the schema's object API
  // value (fb::<Kind>OptionsT), recorded as given (weights are not packed).
  void add_op(const std::string& name, fb::OpOptionsUnion options, std::vector<int32_t> inputs,
              std::vector<int32_t> outputs);
  template <class KindOptionsT>
  void add_op(const std::string& name, KindOptionsT options, std::vector<int32_t> inputs,
              std::vector<int32_t> outputs) {
    fb::OpOptionsUnion any;
    any.Set(std::move(options));
    add_op(name, std::move(any), std::move(inputs), std::move(outputs));
  }
  // The kinds the presets build, with their weights packed (Dense weights) or converted
  // (embedding tables) as set above; `bias` may be -1 for none.
  void add_dense(const std::string& name, int x, int weight, int bias, int y,
                 fb::Activation activation = fb::Activation_None);
  void add_add(const std::string& name, int a, int b, int y);
  void add_layernorm(const std::string& name, int x, int gamma, int beta, int y,
                     float epsilon = 1e-5f);
  void add_softmax(const std::string& name, int x, int y);
  void add_attention(const std::string& name, int q, int k, int v, int out, int num_heads,
                     int num_kv_heads, int head_dim, bool causal, float scale = 0.0f);
  // Optional tensors are -1. Semantics: schema/focal.fbs.
  void add_embedding(const std::string& name, int ids, int table, int positions, int type_ids,
                     int segments, int y, float scale = 1.0f);
  void add_rmsnorm(const std::string& name, int x, int gamma, int y, float epsilon);
  void add_copy(const std::string& name, int x, int y);
  void add_glu(const std::string& name, int x, int y, fb::Activation activation);
  void add_pool(const std::string& name, int x, int mask, int y, fb::PoolMode mode);
  struct MultiHeadAttentionSpec {
    int x = -1, wq = -1, bq = -1, wk = -1, bk = -1, wv = -1, bv = -1, wo = -1, bo = -1;
    int key_mask = -1, k_state = -1, v_state = -1, memory = -1;
    int relative_bias = -1;  // rows of a RelativePositionBias op (slot 15)
    int q_norm = -1, k_norm = -1;  // Qwen3's per-head RMSNorm weights [head_dim] (slots 16, 17)
    float qk_norm_epsilon = 1e-6f;
    int num_heads = 1, num_kv_heads = 1, head_dim = 1;
    bool causal = false;
    float scale = 0.0f;
    fb::RopeLayout rope = fb::RopeLayout_None;
    float rope_theta = 10000.0f;
    int rotary_dim = 0;
    std::vector<float> rope_inv_freq;  // rotary_dim / 2 frequencies replacing theta's; empty: theta's
  };
  // Packs wq, wk, wv and wo (as add_dense does).
  void add_multi_head_attention(const std::string& name, const MultiHeadAttentionSpec& spec, int y);

  // Recurrent ops (packs their weights). Optional tensors are -1; `outputs` of a
  // Recurrent op: y, then optionally h_n and c_n.
  struct RecurrentSpec {
    int x = -1, mask = -1;
    int w_ih = -1, w_hh = -1, b_ih = -1, b_hh = -1;          // forward
    int w_ih_r = -1, w_hh_r = -1, b_ih_r = -1, b_hh_r = -1;  // reverse (bidirectional)
    int h0 = -1, c0 = -1;
    fb::RecurrentCell cell = fb::RecurrentCell_Lstm;
    int hidden = 0;
  };
  void add_recurrent(const std::string& name, const RecurrentSpec& spec, std::vector<int32_t> outputs);
  // reset_cell: an LSTM step starts from a zero cell state (RecurrentStepOptions).
  void add_recurrent_step(const std::string& name, fb::RecurrentCell cell, int hidden, int x, int w_ih,
                          int w_hh, int b_ih, int b_hh, int h_state, int c_state, int y, bool reset_cell = false);
  // ScoreAttention: weights_out may be -1. w is packed for Additive, row-major for General,
  // [1, Dq + Dk] as stored for Concat, whose activation (None or Tanh) follows the Linear.
  void add_score_attention(const std::string& name, fb::ScoreKind kind, float scale, int query, int keys,
                           int values, int mask, int w, int b, int v, int context, int weights_out,
                           fb::Activation activation = fb::Activation_None);
  void add_concat(const std::string& name, std::vector<int32_t> inputs, int y);
  void add_attention_pool(const std::string& name, int x, int mask, int w, int b, int v, int y, int weights_out);
  // T5's relative position bias rows (schema/focal.fbs RelativePositionBiasOptions).
  void add_relative_position_bias(const std::string& name, int x, int table, int rows, int num_buckets,
                                  int max_distance, bool bidirectional);

  // Stages: call begin_stage before the first op of each; none gives one implicit stage.
  void begin_stage(const std::string& name);

  void set_metadata(const std::string& architecture, const std::string& producer,
                    const std::string& source);
  void add_hyperparameter(const std::string& key, const std::string& value);
  // The model's tokenizer, and a seq2seq model's target-side one. A BPE merge whose parts
  // or result are not in the vocabulary is an error of finish().
  void set_tokenizer(TokenizerSpec tokenizer) { tokenizer_ = std::move(tokenizer); }
  void set_target_tokenizer(TokenizerSpec tokenizer) { target_tokenizer_ = std::move(tokenizer); }
  void add_self_test(SelfTestSpec test);
  // Turns an activation into a model output (a spec names its outputs after the fact).
  void make_output(int tensor);
  // Index of the tensor added with this name; -1 when none.
  int find_tensor(const std::string& name) const;

  // Lays out the data segment, plans the arena, serializes and checksums.
  Result<std::vector<uint8_t>> finish(const WriteOptions& options = WriteOptions()) const;
  // The same file (byte for byte), but the constants' bytes move into it: the writer
  // frees its own copy of each as it is written and reads it from the returned file
  // afterwards, so that file must outlive the writer's use. With `previous`, a file
  // constants were moved into before (the self-test's draft), whose pages are released
  // as they are copied. Converting through this keeps one copy of the weights resident.
  Result<FileBuffer> finish_moving_constants(FileBuffer* previous = nullptr);
  // The FlatBuffer that finish() would write now (the file's start, before the data
  // segment) and the whole file's size: the graph's facts before its data is written.
  Result<std::vector<uint8_t>> header(size_t* file_size) const;

 private:
  struct TensorSpec {
    std::string name;
    DType dtype;
    TensorRole role;
    std::vector<int64_t> shape;
    std::vector<int32_t> dim_symbols;
    std::vector<uint8_t> bytes;  // constants only
    // After finish_moving_constants: the bytes, in the file they moved into (and `bytes`
    // is empty).
    const uint8_t* moved = nullptr;
    size_t moved_size = 0;
    bool dense_packed = false;   // bytes are in the GEMM panel layout
    bool int8_dot = false;       // ... the int8-dot one (DenseInt8Dot)
    size_t int4_group = 0;       // ... the int4 one (DenseInt4) with this group size
    int absent_fill = -1;        // inputs only: -1 required, else 1 or 0 (fb::WhenAbsent)
    std::vector<float> row_scales = {};  // row-major int8 only: one per row (quantization axis 0)
    std::vector<int64_t> zero_points = {};  // int8 activations only: one
  };
  struct OpSpec {
    std::string name;
    fb::OpOptionsUnion options;  // the kind and its options table
    std::vector<int32_t> inputs;
    std::vector<int32_t> outputs;
  };
  struct Layout;
  struct Header;

  int add_tensor(TensorSpec spec);
  void pack_dense_weight(int weight);
  // A KV cache state in kv_cache_type_; returns its int8 scale state, or -1.
  int apply_kv_cache_type(int state, int kv_heads);
  // How pack_dense_weight stores this weight: its type, and whether in the int8-dot layout.
  DType packed_type_of(const std::string& weight, bool* int8_dot) const;
  void store_embedding_table(int table);
  Layout lay_out_data(const WriteOptions& options) const;
  Status check_tokenizers() const;
  Status check_tokenizer_fits(const OpSpec& op) const;
  uint64_t plan_offsets(const Layout& layout, uint32_t version, std::vector<uint64_t>* offsets) const;
  Result<Header> serialize_header(const WriteOptions& options) const;
  size_t move_constant(size_t tensor, uint8_t* at, FileBuffer* previous);
  void write_test_values(const Header& header, uint8_t* file) const;
  std::vector<uint8_t> serialize(const Layout& layout, const std::vector<uint64_t>& arena_offsets,
                                 uint64_t arena_bytes, uint32_t version) const;
  std::vector<flatbuffers::Offset<fb::Tensor>> serialize_tensors(flatbuffers::FlatBufferBuilder& fbb,
                                                                 const Layout& layout,
                                                                 const std::vector<uint64_t>& arena_offsets) const;
  std::vector<flatbuffers::Offset<fb::Op>> serialize_ops(flatbuffers::FlatBufferBuilder& fbb) const;
  std::vector<flatbuffers::Offset<fb::SelfTestCase>> serialize_self_tests(flatbuffers::FlatBufferBuilder& fbb,
                                                                          const Layout& layout) const;
  std::vector<flatbuffers::Offset<fb::Stage>> serialize_stages(flatbuffers::FlatBufferBuilder& fbb) const;
  bool operands_in_range() const;

  std::vector<std::pair<std::string, int64_t>> symbols_;
  std::vector<TensorSpec> tensors_;
  std::vector<OpSpec> ops_;
  std::vector<SelfTestSpec> self_tests_;
  std::vector<std::pair<std::string, int>> stages_;  // name, first op
  std::string architecture_, producer_, source_;
  DType dense_weight_type_ = DType::kF32;
  DType embedding_table_type_ = DType::kF32;
  size_t int4_group_ = 32;
  DType kv_cache_type_ = DType::kF32;
  bool int8_activations_ = false;
  std::set<std::string> keep_weight_only_, keep_f32_;
  std::set<std::string> tied_tables_;  // shared with a Dense op: int8 when the weights are int4
  Status error_;  // the first failure of a call that cannot return one, for finish()
  std::vector<std::pair<std::string, std::string>> hyperparameters_;
  TokenizerSpec tokenizer_, target_tokenizer_;
};

}  // namespace focal
