// What every op family provides: a check run once when the model is loaded (operand
// count, dtypes, shapes, options) and a run function that trusts what was checked.
#pragma once

#include "focal/parallel.h"
#include "focal/status.h"
#include "focal/tensor.h"
#include "focal_generated.h"
#include "focal/internal/op_kinds.h"

namespace focal {
namespace kernels {
struct KernelSet;  // dispatch/kernel_set.h
}

// Load-time view of one op, for checks and their error messages.
struct OpCheck {
  const fb::Model& model;
  const fb::Op& op;
  int index;  // position in the graph

  int input_count() const { return static_cast<int>(op.inputs()->size()); }
  // False for an optional slot given as -1 (or beyond the operands listed).
  bool has_input(int i) const { return i < input_count() && op.inputs()->Get(i) >= 0; }
  const fb::Tensor& input(int i) const { return *model.tensors()->Get(op.inputs()->Get(i)); }
  const fb::Tensor& output(int i) const { return *model.tensors()->Get(op.outputs()->Get(i)); }
  int output_count() const { return static_cast<int>(op.outputs()->size()); }
  // An InvalidModel status prefixed with the op's index, name and kind.
  Status fail(const char* format, ...) const __attribute__((format(printf, 2, 3)));
};

// A tensor's bytes and actual shape for one run; null data for an absent optional slot.
struct BoundTensor {
  void* data = nullptr;
  Shape shape;
  const fb::Tensor* tensor = nullptr;  // its description in the model (layout, dtype)

  bool present() const { return data != nullptr; }
  const int32_t* i32() const { return static_cast<const int32_t*>(data); }
  const float* f32() const { return static_cast<const float*>(data); }
  float* mutable_f32() const { return static_cast<float*>(data); }
};

struct OpRun {
  const fb::Model& model;
  const fb::Op& op;
  const BoundTensor* inputs;
  int input_count;
  const BoundTensor* outputs;
  int output_count;
  // Kernel scratch at the end of the arena, workspace_bytes() long for this op.
  void* workspace;
  size_t workspace_bytes;
  ParallelFor* parallel;  // null: run on the calling thread
  // Positions already in the session's KV caches: where this run's tokens start.
  int64_t cached_length;
  // Attention weights requested for inspection ([B, H, Sq, Sk] floats), or null.
  float* attention_weights;
  size_t attention_weights_floats;
  // The op's options table, resolved once when the session was created (its type is
  // the one the op's load-time check took): options<fb::DenseOptions>() and so on.
  const void* options_table;

  // The session's kernels (every op of a session runs on the same set).
  const kernels::KernelSet& kernels;

  template <class Options>
  const Options& options() const {
    return *static_cast<const Options*>(options_table);
  }
};

// An op's operands at one run's actual shapes, for the facts that depend on them
// (OpDef::flops).
struct OpShapes {
  const fb::Model& model;
  const fb::Op& op;
  const Shape* inputs;  // by slot
  int input_count;
  int64_t cached_length;  // positions in the session's KV caches after the run

  bool has_input(int i) const { return i < input_count && op.inputs()->Get(i) >= 0; }
};

struct OpDef {
  const char* kind;
  int min_inputs;
  int max_inputs;
  int outputs;
  Status (*check)(const OpCheck&);
  // Fails only on what load-time checks cannot see: the run's data (a token id out of
  // range, a mask that is not 1s then 0s, a sequence past a positional table).
  Status (*run)(const OpRun&);
  // Scratch the op's kernel needs at the planned maximum shapes with `workers` threads;
  // null for ops that need none. The session reserves the largest over all ops.
  size_t (*workspace_bytes)(const fb::Model& model, const fb::Op& op, int workers);
  // Bit i set: input slot i may be -1 (absent).
  uint32_t optional_inputs = 0;
  // Fewer outputs allowed (trailing optional ones); 0: exactly `outputs`.
  int min_outputs = 0;

  // Facts the session, the converter and `focal bench` ask the op for (null: none).
  // Positions this op's KV cache holds (its states' planned length), 0 when this op
  // keeps none. Each run of a cache-keeping op appends its input 0's dim 1 (the run's
  // new tokens) at the session's cached length, so every cache advances together.
  int64_t (*kv_cache_capacity)(const fb::Model& model, const fb::Op& op) = nullptr;
  // Query heads whose attention weights a capture (Session::capture_attention) records,
  // as [B, heads, Sq, Sk] floats; null for ops whose weights cannot be captured.
  int (*captured_heads)(const fb::Op& op) = nullptr;
  // Matrix-product FLOPs of one run at the given shapes (the work that dominates);
  // null for ops whose work is not counted.
  double (*flops)(const OpShapes& shapes) = nullptr;
  // The input slot of the table whose rows input `slot` indexes (token or segment ids,
  // which must be below the table's rows), -1 when that input is not ids; null for ops
  // that read no ids.
  int (*indexed_table)(int slot) = nullptr;
};

// The definition for an op type; null for types this engine does not know or this
// build left out (ops/op_selection.h).
const OpDef* find_op_def(fb::OpOptions type);
// The same for an op type's form on int8 activations (FOCAL_FOR_EACH_INT8_OP).
const OpDef* find_int8_op_def(fb::OpOptions type);
// Verifies an op's options table, of `type`, with the FlatBuffers verifier as the form
// it runs reads it (its int8 form when `int8`, as runs_int8 answers): defined beside
// find_op_def by the registry, so that only the selected ops' tables have their verifiers
// linked (ops/op_selection.h). True for a type or form this build has no definition for,
// which the loader refuses once it looks the op up. `options` is not null (a required
// field, whose offset the caller has verified).
bool verify_op_options(flatbuffers::Verifier& verifier, fb::OpOptions type, const void* options,
                       bool int8);
// The definition `op` runs with: its int8 form when one of its operands is an int8
// activation (an I8 tensor that is not a constant or a state), else its float form.
// Operand indices out of range count as float (the loader refuses them next).
bool runs_int8(const fb::Model& model, const fb::Op& op);
const OpDef* find_op_def(const fb::Model& model, const fb::Op& op);

// One op as Session::create prepares it, in the session's arena: its definition, its
// options table and its operands' bytes resolved once, so that a run looks up no op
// definition, options union or tensor table entry (it only binds the run's shapes).
struct PreparedOperand {
  void* data = nullptr;  // null: an absent optional slot
  const fb::Tensor* tensor = nullptr;
};
struct PreparedOp {
  const OpDef* def;
  const fb::Op* op;
  const void* options;               // op->options()
  const PreparedOperand* operands;   // input_count inputs, then output_count outputs
  int input_count;
  int output_count;
  int64_t kv_cache_capacity;         // def->kv_cache_capacity's answer, 0 for none
};

// One definition per op family, each in its own file (focal/internal/op_kinds.h lists them).
#define FOCAL_DECLARE_OP_DEF(Name, def, spec_kind) const OpDef& def##_op_def();
FOCAL_FOR_EACH_OP(FOCAL_DECLARE_OP_DEF)
#undef FOCAL_DECLARE_OP_DEF
#define FOCAL_DECLARE_INT8_OP_DEF(Name, def) const OpDef& def##_op_def();
FOCAL_FOR_EACH_INT8_OP(FOCAL_DECLARE_INT8_OP_DEF)
#undef FOCAL_DECLARE_INT8_OP_DEF

}  // namespace focal
