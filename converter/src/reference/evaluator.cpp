// The reference evaluator's run loop: binds operands the way Session::run_ops does
// (actual shapes from the symbols, constants from the data segment) and calls each op's
// double-precision function.
#include "reference/evaluator.h"

#include <algorithm>

#include "focal_generated.h"
#include "focal/internal/graph.h"
#include "reference/reference_ops.h"

namespace focal {
namespace reference {
namespace {

// Row-major constants up to this many elements are read into doubles once (biases,
// norms, position tables); larger ones (embedding tables) are read where they lie.
constexpr int64_t kMaterializedConstant = int64_t(1) << 22;

const fb::Tensor& tensor_at(const Model& model, int index) {
  return *model.schema().tensors()->Get(static_cast<uint32_t>(index));
}

}  // namespace

Result<Evaluator> Evaluator::create(const Model& model) {
  Evaluator e(&model);
  for (const fb::Op* op : *model.schema().ops()) {
    if (find_reference_op(op->options_type()) == nullptr) {
      return Status::error(StatusCode::kUnsupported, "the reference evaluator has no op %s (op '%s')",
                           fb::EnumNameOpOptions(op->options_type()), op->name() ? op->name()->c_str() : "");
    }
  }
  e.storage_.resize(static_cast<size_t>(model.tensor_count()));
  for (int t = 0; t < model.tensor_count(); ++t) {
    const fb::Tensor& tensor = tensor_at(model, t);
    const int64_t count = max_shape(tensor).element_count();
    // Non-constant tensors get their storage when first bound, at their actual size.
    if (tensor.role() != fb::TensorRole_Constant || tensor.layout() != fb::TensorLayout_RowMajor ||
        count > kMaterializedConstant) {
      continue;
    }
    std::vector<double>& values = e.storage_[static_cast<size_t>(t)];
    values.assign(static_cast<size_t>(count), 0.0);
    Operand stored;
    stored.tensor = &tensor;
    stored.bytes = model.data_segment() + tensor.data()->offset();
    for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = stored.at(static_cast<size_t>(i));
  }
  e.symbols_.resize(static_cast<size_t>(model.symbol_count()));
  for (int s = 0; s < model.symbol_count(); ++s) e.symbols_[static_cast<size_t>(s)] = model.symbol(s).max;
  e.pending_.assign(e.symbols_.size(), 0);
  e.input_set_.assign(static_cast<size_t>(model.input_count()), false);
  return e;
}

Status Evaluator::set_input(int input_index, const Shape& shape, const std::vector<double>& values) {
  if (input_index < 0 || input_index >= model_->input_count()) {
    return Status::error(StatusCode::kInvalidArgument, "input %d does not exist", input_index);
  }
  const int t = model_->input_tensor(input_index);
  const TensorInfo info = model_->tensor(t);
  if (shape.rank != info.shape.rank) {
    return Status::error(StatusCode::kInvalidArgument, "input '%s' has rank %d, given %d", info.name,
                         info.shape.rank, shape.rank);
  }
  std::vector<int64_t> bound = pending_;
  for (int i = 0; i < shape.rank; ++i) {
    const int s = info.dim_symbols[i];
    const int64_t d = shape.dims[i];
    const bool fits = s < 0 ? d == info.shape.dims[i] : d >= 1 && d <= model_->symbol(s).max;
    if (!fits || (s >= 0 && bound[size_t(s)] != 0 && bound[size_t(s)] != d)) {
      return Status::error(StatusCode::kInvalidArgument, "input '%s' dim %d = %lld does not fit the model",
                           info.name, i, static_cast<long long>(d));
    }
    if (s >= 0) bound[size_t(s)] = d;
  }
  if (values.size() != static_cast<size_t>(shape.element_count())) {
    return Status::error(StatusCode::kInvalidArgument, "input '%s' needs %lld values, given %zu", info.name,
                         static_cast<long long>(shape.element_count()), values.size());
  }
  std::vector<double>& storage = storage_[static_cast<size_t>(t)];
  if (storage.size() < values.size()) storage.resize(values.size());
  std::copy(values.begin(), values.end(), storage.begin());
  pending_ = bound;
  input_set_[static_cast<size_t>(input_index)] = true;
  return Status();
}

Shape Evaluator::actual_shape(int tensor) const {
  const fb::Tensor& t = tensor_at(*model_, tensor);
  Shape shape = max_shape(t);
  for (int i = 0; t.dim_symbols() != nullptr && i < shape.rank; ++i) {
    const int32_t s = t.dim_symbols()->Get(static_cast<uint32_t>(i));
    if (s >= 0) shape.dims[i] = symbols_[static_cast<size_t>(s)];
  }
  return shape;
}

// Room in every KV cache for this run's tokens (the engine refuses before running).
Status Evaluator::check_cache_room(int64_t* appended) const {
  *appended = 0;
  for (int op = 0; op < model_->op_count(); ++op) {
    const int64_t capacity = model_->op(op).kv_cache_capacity;
    if (capacity == 0) continue;
    *appended = actual_shape(model_->op_input(op, 0)).dims[1];
    if (cached_length_ + *appended > capacity) {
      return Status::error(StatusCode::kOutOfRange, "%lld cached + %lld new positions exceed the KV cache's %lld",
                           static_cast<long long>(cached_length_), static_cast<long long>(*appended),
                           static_cast<long long>(capacity));
    }
  }
  return Status();
}

Status Evaluator::run_op(int op_index) {
  const fb::Op& op = *model_->schema().ops()->Get(static_cast<uint32_t>(op_index));
  Operand inputs[kMaxOperands], outputs[kMaxOperands];
  const auto bind = [&](int32_t index) {
    Operand operand;
    if (index < 0) return operand;
    const fb::Tensor& t = tensor_at(*model_, index);
    operand.tensor = &t;
    operand.shape = actual_shape(index);
    std::vector<double>& storage = storage_[static_cast<size_t>(index)];
    if (t.role() == fb::TensorRole_Constant) {
      operand.bytes = model_->data_segment() + t.data()->offset();
    } else if (storage.size() < static_cast<size_t>(operand.shape.element_count())) {
      // Grown, never shrunk: a state keeps its values (states start as zeros).
      storage.resize(static_cast<size_t>(operand.shape.element_count()), 0.0);
    }
    operand.values = storage.empty() ? nullptr : storage.data();
    return operand;
  };
  const int input_count = static_cast<int>(op.inputs()->size());
  const int output_count = static_cast<int>(op.outputs()->size());
  for (int i = 0; i < input_count; ++i) inputs[i] = bind(op.inputs()->Get(static_cast<uint32_t>(i)));
  for (int i = 0; i < output_count; ++i) outputs[i] = bind(op.outputs()->Get(static_cast<uint32_t>(i)));
  const OpContext context{model_->schema(), op, inputs, input_count, outputs, output_count, cached_length_,
                          dense_observer_, int8_activations_};
  const Status status = find_reference_op(op.options_type())(context);
  if (!status.ok()) {
    return Status::error(status.code(), "op %d '%s': %s", op_index, op.name() ? op.name()->c_str() : "",
                         status.message());
  }
  return Status();
}

Status Evaluator::run() {
  std::vector<int> absent;  // optional inputs left unset
  for (int i = 0; i < model_->input_count(); ++i) {
    bool read = false;
    for (int op = 0; op < model_->op_count() && !read; ++op) {
      for (int slot = 0; slot < model_->op(op).input_count; ++slot) read |= model_->op_input(op, slot) == model_->input_tensor(i);
    }
    if (read && !input_set_[static_cast<size_t>(i)]) {
      const TensorInfo info = model_->tensor(model_->input_tensor(i));
      bool sized = info.absent_fill >= 0;  // an optional input: filled below, as the engine does
      for (int d = 0; d < info.shape.rank && sized; ++d) sized = info.dim_symbols[d] < 0 || pending_[size_t(info.dim_symbols[d])] != 0;
      if (!sized) {
        return Status::error(StatusCode::kInvalidArgument, "input '%s' not set since the last run", info.name);
      }
      absent.push_back(model_->input_tensor(i));
    }
  }
  for (size_t s = 0; s < symbols_.size(); ++s) {
    if (pending_[s] != 0) symbols_[s] = pending_[s];
  }
  for (const int t : absent) {
    std::vector<double>& storage = storage_[static_cast<size_t>(t)];
    const size_t count = static_cast<size_t>(actual_shape(t).element_count());
    if (storage.size() < count) storage.resize(count);
    std::fill(storage.begin(), storage.begin() + static_cast<long>(count), double(model_->tensor(t).absent_fill));
  }
  pending_.assign(symbols_.size(), 0);
  input_set_.assign(input_set_.size(), false);
  int64_t appended = 0;
  FOCAL_RETURN_IF_ERROR(check_cache_room(&appended));
  for (int op = 0; op < model_->op_count(); ++op) FOCAL_RETURN_IF_ERROR(run_op(op));
  cached_length_ += appended;
  return Status();
}

Value Evaluator::value(int tensor) const {
  Value v;
  v.tensor = tensor;
  v.shape = actual_shape(tensor);
  const std::vector<double>& storage = storage_[static_cast<size_t>(tensor)];
  v.values.assign(storage.begin(), storage.begin() + std::min<int64_t>(v.shape.element_count(),
                                                                      static_cast<int64_t>(storage.size())));
  return v;
}

}  // namespace reference
}  // namespace focal
