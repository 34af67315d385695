// A double-precision reference evaluator of a loaded focal::Model: every op of the graph
// evaluated by plain scalar loops in double (reference_ops.h), never by the engine's
// f32 kernels, from the weights as stored (f16, bf16 and int8 read back exactly; a
// weight in the int8-dot layout takes int8 activations, as the engine runs it). The
// converter computes self-test expected outputs with it, so a self-test checks the
// engine's arithmetic against exact math on the same weights.
//
// It mirrors a focal::Session's run semantics: inputs bind the model's symbols (batch,
// seq, ...) and unbound symbols keep their last values (at first, the planned maxima);
// run() executes every op in order, all stages included; state tensors (KV caches, RNN
// states, cross-attention keys) keep their values across runs; KV caches append each
// run's tokens at the cached length, and reset_state() starts a new sequence. Data
// errors (an id out of range, a mask that is not 1s then 0s, a full cache) are refused
// as the engine refuses them. Memory: one double per element of every non-constant
// tensor at the largest actual shape it has had (a KV cache at its planned length),
// plus small constants read once; large constants (embedding tables, dense weights)
// are read from the model bytes where they lie.
#pragma once

#include <cstdint>
#include <vector>

#include "focal/model.h"
#include "focal/status.h"
#include "focal/tensor.h"
#include "reference/dense_observer.h"

namespace focal {
namespace reference {

// One tensor's value: model tensor index, actual shape, elements row-major in double
// (ids and masks too, exactly).
struct Value {
  int tensor = -1;
  Shape shape;
  std::vector<double> values;
};

class Evaluator {
 public:
  // `model` must outlive the evaluator. Fails for op kinds it does not know.
  static Result<Evaluator> create(const Model& model);

  // Sets model input `input_index` (not a tensor index) to `values` of `shape`: the
  // checks of Session::set_input (rank, fixed dims, symbols from 1 to their planned
  // maximum and equal across inputs).
  Status set_input(int input_index, const Shape& shape, const std::vector<double>& values);
  // Runs every op; each input the ops read must have been set since the last run.
  Status run();
  void reset_state() { cached_length_ = 0; }
  // Shows every dense product of later runs to `observer` (null: none); it must outlive
  // those runs.
  void set_dense_observer(DenseObserver* observer) { dense_observer_ = observer; }
  // false: weights in the int8-dot layout multiply the f32 rows, as weight-only int8
  // would (the size of what int8 activations change); true, the default: as stored.
  void set_int8_activations(bool on) { int8_activations_ = on; }
  int64_t cached_length() const { return cached_length_; }

  // A non-constant tensor's value after the last run, at its actual shape.
  Value value(int tensor) const;
  const Model& model() const { return *model_; }

 private:
  explicit Evaluator(const Model* model) : model_(model) {}

  Shape actual_shape(int tensor) const;
  Status check_cache_room(int64_t* appended) const;
  Status run_op(int op_index);

  const Model* model_;
  std::vector<std::vector<double>> storage_;  // per tensor, grown to its largest actual size
  std::vector<int64_t> symbols_;              // values of the last run
  std::vector<int64_t> pending_;              // bound by inputs set since; 0: unbound
  std::vector<bool> input_set_;               // per model input, since the last run
  int64_t cached_length_ = 0;
  DenseObserver* dense_observer_ = nullptr;
  bool int8_activations_ = true;
};

}  // namespace reference
}  // namespace focal
