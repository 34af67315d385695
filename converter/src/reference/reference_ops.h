// The reference evaluator's ops: one double-precision function per op kind of the
// engine (focal/internal/op_kinds.h lists them), same semantics as the engine's op of that
// kind (schema/focal.fbs), written as plain scalar loops in double. They never call the
// engine's kernels: they are what the engine's f32 arithmetic is checked against.
// One file per op family; shared helpers (dense rows, activations, masks) here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "focal/internal/op_kinds.h"
#include "focal/status.h"
#include "focal_generated.h"
#include "reference/dense_observer.h"
#include "reference/operand.h"

namespace focal {
namespace reference {

constexpr int kMaxOperands = 18;  // the engine's (focal/limits.h)

struct OpContext {
  const fb::Model& model;
  const fb::Op& op;
  const Operand* inputs;  // by slot; absent optional slots are not present()
  int input_count;
  const Operand* outputs;
  int output_count;
  int64_t cached_length;  // positions already in the KV caches
  DenseObserver* dense_observer;  // sees every dense product; null: none
  bool int8_activations;          // false: int8-dot weights multiply f32 rows (weight-only int8)

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
// may be absent (null or not present). No activation. A weight in the int8-dot layout
// takes its rows quantized to int8 (int8_rows.h), as the engine runs it. The product is
// shown to c.dense_observer.
void dense_rows(const OpContext& c, const Operand& w, const Operand* bias, const double* x, size_t x_stride, size_t rows,
                double* y, size_t y_stride);

// Valid lengths of a [batch, seq] mask of 1s then 0s; an error for any other mask.
Status mask_lengths(const Operand& mask, size_t batch, size_t seq, const char* what,
                    std::vector<int64_t>* lengths);

// Softmax of scores[0, length) in place, zeros from `length` to `count` (0 length:
// all zeros). Entries of -inf get weight 0; a row without a finite entry gives zeros.
void softmax_prefix(double* scores, size_t length, size_t count);

// One op kind each, `<def>_op` for every entry of focal/internal/op_kinds.h.
#define FOCAL_DECLARE_REFERENCE_OP(Name, def, spec_kind) Status def##_op(const OpContext& c);
FOCAL_FOR_EACH_OP(FOCAL_DECLARE_REFERENCE_OP)
#undef FOCAL_DECLARE_REFERENCE_OP

}  // namespace reference
}  // namespace focal
