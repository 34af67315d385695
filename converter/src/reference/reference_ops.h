// The reference evaluator's ops: one double-precision function per op kind of the
// engine (engine/src/ops/op_registry.cpp), same semantics as the engine's op of that
// kind (schema/focal.fbs), written as plain scalar loops in double. They never call the
// engine's kernels: they are what the engine's f32 arithmetic is checked against.
// One file per op family; shared helpers (dense rows, activations, masks) here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "focal/status.h"
#include "focal_generated.h"
#include "reference/operand.h"

namespace focal {
namespace reference {

constexpr int kMaxOperands = 16;

struct OpContext {
  const fb::Model& model;
  const fb::Op& op;
  const Operand* inputs;  // by slot; absent optional slots are not present()
  int input_count;
  const Operand* outputs;
  int output_count;
  int64_t cached_length;  // positions already in the KV caches

  // Slot i, or an absent operand for a slot beyond those listed.
  const Operand& in(int slot) const;
  bool has_input(int slot) const { return in(slot).present(); }
  bool has_output(int i) const { return i < output_count && outputs[i].present(); }
};

using ReferenceOpFn = Status (*)(const OpContext&);

// The function for an op kind; null for kinds this evaluator does not know.
ReferenceOpFn find_reference_op(fb::OpOptions type);

// ---- Shared helpers ----------------------------------------------------------------

double activation(fb::Activation kind, double x);

// y[r, n] (rows y_stride apart) = x[r, :] . W[n, :] + bias[n] for r < rows, with W the
// Dense weight `w` [out, in] (packed or row-major) and x rows x_stride apart; `bias`
// may be absent (null or not present). No activation.
void dense_rows(const Operand& w, const Operand* bias, const double* x, size_t x_stride, size_t rows,
                double* y, size_t y_stride);

// Valid lengths of a [batch, seq] mask of 1s then 0s; an error for any other mask.
Status mask_lengths(const Operand& mask, size_t batch, size_t seq, const char* what,
                    std::vector<int64_t>* lengths);

// Softmax of scores[0, length) in place, zeros from `length` to `count` (0 length:
// all zeros). Entries of -inf get weight 0; a row without a finite entry gives zeros.
void softmax_prefix(double* scores, size_t length, size_t count);

// One op kind each.
Status dense_op(const OpContext& c);
Status add_op(const OpContext& c);
Status layernorm_op(const OpContext& c);
Status rmsnorm_op(const OpContext& c);
Status softmax_op(const OpContext& c);
Status glu_op(const OpContext& c);
Status copy_op(const OpContext& c);
Status concat_op(const OpContext& c);
Status pool_op(const OpContext& c);
Status embedding_op(const OpContext& c);
Status attention_op(const OpContext& c);
Status multi_head_attention_op(const OpContext& c);
Status recurrent_op(const OpContext& c);
Status recurrent_step_op(const OpContext& c);
Status score_attention_op(const OpContext& c);
Status attention_pool_op(const OpContext& c);

}  // namespace reference
}  // namespace focal
