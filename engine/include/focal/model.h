// A Model is a verified, read-only view over the bytes of a .focal file. It owns
// nothing: the bytes (an mmap, a file read into memory, or a const array in flash)
// must stay alive and unchanged while the Model and every Session on it are used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/status.h"
#include "focal/tensor.h"

namespace focal {
namespace fb {
struct Model;  // generated from schema/focal.fbs
}

// The format version this engine reads and writes.
constexpr uint32_t kFormatVersion = 1;
// Constant buffers and the model bytes themselves must be aligned this much (bytes).
constexpr size_t kBufferAlignment = 64;

struct LoadOptions {
  // CRC-32 over the whole file: about 1 ms per MB on a desktop core. Turn off only
  // when the bytes were already checked (for example in flash after a verified update).
  bool verify_checksum = true;
};

struct OpInfo {
  const char* name = "";
  const char* kind = "";  // "Dense", "Attention", ...
  int input_count = 0;
  int output_count = 0;
  // Query heads whose attention weights Session::capture_attention records (a
  // MultiHeadAttention op's); 0 for ops that record none.
  int attention_heads = 0;
  // Positions the op's KV cache holds (the planned context); 0 for ops without one.
  int64_t kv_cache_capacity = 0;
  // The op runs its static int8 form (integer activations in and out; `focal convert
  // --quantize static`): a firmware links it through focal_select_ops' INT8_OPS.
  bool int8_activations = false;
};

struct StageInfo {
  const char* name = "";
  int first_op = 0;
  int op_count = 0;
};

// One of the converter's hyperparameters: value "" when it has none.
struct HyperparameterInfo {
  const char* key = "";
  const char* value = "";
};

struct SymbolInfo {
  const char* name = "";
  int64_t max = 0;
};

class Model {
 public:
  // Verifies structure (FlatBuffers Verifier), integrity (checksum), version and meaning
  // (shapes, byte sizes, buffer placement, op operands, definition order, memory plan).
  // `data` must be aligned to kBufferAlignment.
  static Result<Model> from_bytes(const void* data, size_t size,
                                  const LoadOptions& options = LoadOptions());

  uint32_t version() const;
  int tensor_count() const;
  TensorInfo tensor(int index) const;
  int find_tensor(const char* name) const;  // -1 when absent
  int op_count() const;
  OpInfo op(int index) const;
  // Tensor index; -1 out of range or for an absent optional operand, as below.
  int op_input(int op_index, int i) const;
  int op_output(int op_index, int i) const;  // tensor index
  // Rows of the table that input `i` of op `op_index` indexes as ids (an Embedding's
  // token or segment ids must be below it); 0 when that input is not ids.
  int64_t op_id_limit(int op_index, int i) const;
  int input_count() const;
  int input_tensor(int i) const;  // tensor index of the i-th model input
  int output_count() const;
  int output_tensor(int i) const;
  // Named op ranges that run on their own (Session::run_stage); 0 for a model without.
  int stage_count() const;
  StageInfo stage(int index) const;
  int symbol_count() const;
  SymbolInfo symbol(int index) const;
  uint64_t arena_bytes() const;      // exact, for the planned maximum shapes
  uint64_t parameter_count() const;  // elements of all constant tensors
  uint64_t parameter_bytes() const;
  int self_test_count() const;
  const char* architecture() const;  // "" when absent
  const char* producer() const;
  // The converter's hyperparameter `key` (e.g. "label.0", a classifier's label names);
  // null when the model has none of that name, "" when it has no value.
  const char* hyperparameter(const char* key) const;
  // All of them, in the file's order ({"", ""} for an index outside 0..count-1).
  int hyperparameter_count() const;
  HyperparameterInfo hyperparameter_info(int index) const;

  const uint8_t* bytes() const { return bytes_; }
  const uint8_t* data_segment() const;  // where constant buffers' offsets start
  size_t size() const { return size_; }
  const fb::Model& schema() const { return *root_; }  // for the engine's own use

 private:
  Model(const uint8_t* bytes, size_t size, const fb::Model* root)
      : bytes_(bytes), size_(size), root_(root) {}

  const uint8_t* bytes_;
  size_t size_;
  const fb::Model* root_;
};

}  // namespace focal
