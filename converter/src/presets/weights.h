// The checkpoint tensors a preset asks for, by name, with the shape it expects. Keeps
// track of which tensors were used, so the converter can report the unused ones, and
// names the nearest existing tensors when one is missing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {

// A float tensor in row-major order.
struct Matrix {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// Levenshtein distance, for "did you mean" suggestions; names are short.
size_t edit_distance(const std::string& a, const std::string& b);

// "[3, 80]", for messages.
std::string shape_text(const std::vector<int64_t>& shape);

// out[j, i] = m[i, j] (weights stored [in, out]: Keras, GPT-2's Conv1D).
Matrix transposed(const Matrix& m);
// Rows [begin, begin + count) of a 2-D matrix, or elements of a 1-D one (fused QKV).
Matrix row_slice(const Matrix& m, int64_t begin, int64_t count);
// a's rows then b's rows (a gated MLP's gate and up projections as one weight).
Matrix stacked(const Matrix& a, const Matrix& b);

class WeightSource {
 public:
  explicit WeightSource(std::vector<Checkpoint> checkpoints);
  // For benchmarks of real shapes without checkpoints: get() returns normal random
  // values (std 0.02, seeded) of whatever shape is asked; has() is false, so optional
  // tensors are left out.
  static WeightSource random(uint32_t seed);

  // Names are looked up as prefix + name, then as name (so "bert.encoder..." and
  // "encoder..." both work when the preset sets the prefix "bert.").
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }
  // True when any checkpoint holds prefix + name or name.
  bool has(const std::string& name) const;
  // The tensor as f32; an error names the tensor, the expected and found shapes, or,
  // when it is missing, the nearest names in the checkpoints.
  Result<Matrix> get(const std::string& name, const std::vector<int64_t>& shape);
  // Any shape (the caller checks it); random mode cannot know one and refuses.
  Result<Matrix> get_any(const std::string& name);
  // The tensor's shape without reading it (a preset infers sizes from it); null when
  // absent, as in random mode.
  const std::vector<int64_t>* shape_of(const std::string& name) const;
  // The name the checkpoint holds it under (prefix included), for messages; `name` if absent.
  std::string stored_name(const std::string& name) const;
  // The error get() gives for a tensor the checkpoint lacks, naming the nearest names.
  Status missing(const std::string& name, const std::vector<int64_t>& shape = {}) const;
  // Tensors never returned by get(), in checkpoint order.
  std::vector<std::string> unused() const;
  std::vector<std::string> names() const;  // every tensor, in checkpoint order
  std::string describe_sources() const;  // the checkpoint paths, for metadata
  // Called after every get() with (tensors taken, tensors in the checkpoints).
  void set_progress(std::function<void(size_t, size_t)> progress) { progress_ = std::move(progress); }

 private:
  const CheckpointTensor* find(const std::string& name) const;
  std::string nearest_names(const std::string& name) const;
  Matrix random_matrix(const std::vector<int64_t>& shape);  // N(0, 0.02), the next seed
  void mark_taken(const CheckpointTensor* t);                 // counts it once, reports progress

  std::vector<Checkpoint> checkpoints_;
  std::vector<std::vector<bool>> used_;
  std::string prefix_;
  std::function<void(size_t, size_t)> progress_;
  size_t taken_ = 0;
  bool random_ = false;
  uint32_t seed_ = 0;
};

}  // namespace convert
}  // namespace focal
