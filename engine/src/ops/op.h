// What every op family provides: a check run once when the model is loaded (operand
// count, dtypes, shapes, options) and a run function that trusts what was checked.
#pragma once

#include "focal/parallel.h"
#include "focal/status.h"
#include "focal/tensor.h"
#include "focal_generated.h"

namespace focal {

constexpr int kMaxOperands = 8;

// Load-time view of one op, for checks and their error messages.
struct OpCheck {
  const fb::Model& model;
  const fb::Op& op;
  int index;  // position in the graph

  int input_count() const { return static_cast<int>(op.inputs()->size()); }
  const fb::Tensor& input(int i) const { return *model.tensors()->Get(op.inputs()->Get(i)); }
  const fb::Tensor& output(int i) const { return *model.tensors()->Get(op.outputs()->Get(i)); }
  // An InvalidModel status prefixed with the op's index, name and kind.
  Status fail(const char* format, ...) const __attribute__((format(printf, 2, 3)));
};

// A tensor's bytes and actual shape for one run.
struct BoundTensor {
  void* data;
  Shape shape;

  const float* f32() const { return static_cast<const float*>(data); }
  float* mutable_f32() const { return static_cast<float*>(data); }
};

struct OpRun {
  const fb::Model& model;
  const fb::Op& op;
  const BoundTensor* inputs;
  int input_count;
  const BoundTensor* outputs;
  // Kernel scratch at the end of the arena, workspace_bytes() long for this op.
  void* workspace;
  size_t workspace_bytes;
  ParallelFor* parallel;  // null: run on the calling thread
};

struct OpDef {
  const char* kind;
  int min_inputs;
  int max_inputs;
  int outputs;
  Status (*check)(const OpCheck&);
  void (*run)(const OpRun&);
  // Scratch the op's kernel needs at the planned maximum shapes with `workers` threads;
  // null for ops that need none. The session reserves the largest over all ops.
  size_t (*workspace_bytes)(const fb::Model& model, const fb::Op& op, int workers);
};

// The definition for an op type; null for types this engine does not know.
const OpDef* find_op_def(fb::OpOptions type);

// One definition per op family, each in its own file.
const OpDef& dense_op_def();
const OpDef& add_op_def();
const OpDef& layernorm_op_def();
const OpDef& softmax_op_def();
const OpDef& attention_op_def();

}  // namespace focal
