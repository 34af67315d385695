// A Session runs one Model inside one arena: a block of memory the caller provides
// (or, on Linux, an OwnedSession that allocates it once). Creating a session validates
// everything; after that, set_input/run/output allocate nothing and cannot fail on
// anything but the caller's input data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/model.h"
#include "focal/parallel.h"
#include "focal/status.h"
#include "focal/tensor.h"

namespace focal {

struct SessionOptions {
  // Limits on the symbols named "batch" and "seq"; 0 means the model's planned maximum.
  // A limit above the planned maximum is refused.
  int64_t max_batch = 0;
  int64_t max_seq = 0;
  // Workers for the ops that split their work (attention today): a caller-owned
  // ParallelFor that outlives the session (on Linux, focal::ThreadPool); null runs
  // everything on the calling thread. Results are bitwise identical either way.
  ParallelFor* parallel = nullptr;
};

class Session {
 public:
  static constexpr int kMaxSymbols = 8;
  static constexpr int kMaxInputs = 64;

  // Bytes of arena that create() needs for this model and these options: the model's
  // planned activations, then the largest scratch any op's kernel needs.
  static Result<size_t> required_arena_bytes(const Model& model, const SessionOptions& options);

  // `arena` must be aligned to kBufferAlignment and at least required_arena_bytes()
  // long; it stays owned by the caller and must outlive the session. `model` too.
  static Result<Session> create(const Model& model, const SessionOptions& options, void* arena,
                                size_t arena_bytes);

  int input_count() const;
  int output_count() const;
  int find_input(const char* name) const;   // index among inputs, -1 when absent
  int find_output(const char* name) const;  // index among outputs, -1 when absent

  // Copies `bytes` of data of the given actual shape into the input's arena slot.
  // The shape must match the model's input except on symbolic dims, which take values
  // from 1 to the session's limit; every input must agree on each symbol's value.
  Status set_input(int input_index, const Shape& shape, const void* data, size_t bytes);

  // Runs every op in order. Every input must have been set since the previous run
  // (so one run never mixes fresh and stale inputs); that is the only failure.
  Status run();

  // The output's value from the last run, at its actual shape; an empty view (null
  // data, rank 0) for an index out of range.
  TensorView output(int output_index) const;
  // Any non-constant tensor by model tensor index (for inspection and tests).
  TensorView tensor_view(int tensor_index) const;

  const Model& model() const { return *model_; }

 private:
  Session(const Model* model, uint8_t* arena) : model_(model), arena_(arena) {}

  const Model* model_;
  uint8_t* arena_;
  uint8_t* workspace_ = nullptr;  // kernel scratch, after the planned activations
  size_t workspace_bytes_ = 0;
  ParallelFor* parallel_ = nullptr;
  int64_t symbol_limit_[kMaxSymbols] = {};
  int64_t symbol_value_[kMaxSymbols] = {};    // values of the last run
  int64_t pending_symbol_[kMaxSymbols] = {};  // bound by inputs set since; 0 = unbound
  uint64_t inputs_set_ = 0;                   // bit i: input i set since the last run

  friend struct SessionAccess;
};

}  // namespace focal
