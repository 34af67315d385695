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

struct PreparedOp;  // ops/op.h
namespace kernels {
struct KernelSet;  // the kernels a session runs on (engine/src/kernels/dispatch/kernel_set.h)
}

struct SessionOptions {
  // Limits on the symbols named "batch" and "seq"; 0 means the model's planned maximum.
  // A limit above the planned maximum is refused.
  int64_t max_batch = 0;
  int64_t max_seq = 0;
  // Workers for the ops that split their work (attention today): a caller-owned
  // ParallelFor that outlives the session (on Linux, focal::ThreadPool); null runs
  // everything on the calling thread. Results are bitwise identical either way.
  ParallelFor* parallel = nullptr;
  // The instruction set every op of the session runs on, by name: "avx512", "avx2",
  // "sse2" (x86-64), "neon64" (AArch64), "neon" (armv7), "mve" (Cortex-M55) or "scalar",
  // one this build has and this CPU runs, else create() fails with kUnsupported. Null: the
  // best this CPU runs. The int8 and int4 GEMMs take the best variant the named set allows
  // (avx512: AMX or AVX-512 VNNI where the CPU has them). Outputs can differ between
  // instruction sets in the last bits (vector widths, FMA), never between runs on one.
  // Firmware (bare-metal builds) runs its best set only and takes null.
  const char* isa = nullptr;
};

class Session {
 public:
  static constexpr int kMaxSymbols = focal::kMaxSymbols;  // focal/limits.h
  static constexpr int kMaxInputs = kMaxModelInputs;
  static constexpr int kMaxStages = focal::kMaxStages;

  // Bytes of arena that create() needs for this model and these options: the model's
  // planned activations, the ops as the session prepares them (each op's definition,
  // options and operands, resolved once), then the largest scratch any op's kernel needs.
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
  // (so one run never mixes fresh and stale inputs). Other failures come from the
  // data: a token id out of range, a mask that is not 1s then 0s, or more tokens than
  // the KV cache has room for. With KV caches, each run appends its tokens to them.
  Status run();

  // Stages: named parts of the graph that run on their own (an encoder-decoder's
  // "encode" fills the cross-attention states once per source, then "decode" runs once
  // per generated token). A model without stages has one, running every op. A stage
  // needs only the inputs its own ops read; symbols keep the values of the last run
  // that bound them (the source length stays known while decoding).
  int stage_count() const;
  int find_stage(const char* name) const;  // -1 when absent
  Status run_stage(int stage_index);

  // KV caches: positions already cached (the next run's tokens start here), and their
  // capacity (the planned maximum context; 0 for models without caches). reset_state()
  // starts a new sequence; it touches no memory.
  int64_t cached_length() const { return cached_length_; }
  int64_t cache_capacity() const;
  void reset_state() { cached_length_ = 0; }

  // Beam search: row i of every state's batch dim becomes old row rows[i] (i < count,
  // count and rows below the session's batch limit). States the permutation leaves unchanged (an
  // encoder's memory, equal in every beam) are not touched; the others are moved through
  // the kernel scratch area, so their rows must fit in it (RNN states do; long KV caches
  // may not: then kResourceExhausted). Allocates nothing.
  Status permute_state_batch(const int32_t* rows, int count);

  // Inspection: from the next run on, the attention op `op_index` (a MultiHeadAttention
  // op) also writes its softmax weights, [batch, heads, q_len, kv_len] floats, to
  // `weights` (`capacity` floats, caller-owned; a run that needs more fails). A null
  // `weights` stops it.
  Status capture_attention(int op_index, float* weights, size_t capacity);
  // Matrix-product FLOPs of op `op_index` in one run at the last run's shapes and the
  // current cached length: Dense ops, and the projections and attention products of
  // MultiHeadAttention ops (the work that dominates); 0 for other ops.
  double op_flops(int op_index) const;
  // The part of those FLOPs run on int8 activations: 2 * rows * out * in for each of the
  // op's weights in the int8-dot layout (TensorLayout DenseInt8Dot), rows those of the
  // op's first input, as op_flops counts them; 0 for ops without such weights.
  double op_int8_flops(int op_index) const;

  // The output's value from the last run, at its actual shape; an empty view (null
  // data, rank 0) for an index out of range.
  TensorView output(int output_index) const;
  // Any non-constant tensor by model tensor index (for inspection and tests). After a
  // run, only outputs and states are sure to hold their values: the memory plan lets
  // later tensors reuse an input's or an activation's bytes once it has been read.
  TensorView tensor_view(int tensor_index) const;

  // Profiling: `observer(op_index, user)` is called with -1 when a run starts and with
  // each op's index when that op finishes (so the time between calls is the op's).
  // Null stops it. Costs nothing when unset.
  using OpObserver = void (*)(int op_index, void* user);
  void set_op_observer(OpObserver observer, void* user) {
    observer_ = observer;
    observer_user_ = user;
  }

  const Model& model() const { return *model_; }
  // The instruction set the session's kernels use (SessionOptions::isa, or the best).
  const char* isa() const;

 private:
  Session(const Model* model, uint8_t* arena) : model_(model), arena_(arena) {}

  const Model* model_;
  uint8_t* arena_;
  const PreparedOp* ops_ = nullptr;  // in the arena, after the planned activations
  uint8_t* workspace_ = nullptr;     // kernel scratch, after the prepared ops
  size_t workspace_bytes_ = 0;
  ParallelFor* parallel_ = nullptr;
  const kernels::KernelSet* kernels_ = nullptr;
  int64_t symbol_limit_[kMaxSymbols] = {};
  int64_t symbol_value_[kMaxSymbols] = {};    // values of the last run
  int64_t pending_symbol_[kMaxSymbols] = {};  // bound by inputs set since; 0 = unbound
  uint64_t inputs_set_ = 0;                   // bit i: input i set since the last run
  uint64_t all_inputs_ = 0;                 // bit i: some op reads input i
  uint64_t stage_inputs_[kMaxStages] = {};  // the same per stage
  int64_t cached_length_ = 0;
  int capture_op_ = -1;
  float* capture_weights_ = nullptr;
  size_t capture_capacity_ = 0;
  OpObserver observer_ = nullptr;
  void* observer_user_ = nullptr;

  // `needed`: bit i when the ops read model input i (all_inputs_ or stage_inputs_).
  Status run_ops(int first_op, int op_count, uint64_t needed);
};

}  // namespace focal
