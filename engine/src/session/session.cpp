#include "focal/session.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "dispatch/kernel_set.h"
#include "gemm/gemm_kernels.h"
#include "focal/internal/graph.h"
#include "ops/op.h"
#include "support/saturating_size.h"

namespace focal {
namespace {

bool is_named(const SymbolInfo& symbol, const char* name) {
  return std::strcmp(symbol.name, name) == 0;
}

// The limit a session puts on each symbol: the option for "batch"/"seq" if given.
Status symbol_limits(const Model& model, const SessionOptions& options, int64_t* limits) {
  if (options.parallel != nullptr && options.parallel->workers() < 1) {
    return Status::error(StatusCode::kInvalidArgument, "parallel has no workers");
  }
  if (options.max_batch < 0 || options.max_seq < 0) {
    return Status::error(StatusCode::kInvalidArgument, "negative session limit");
  }
  for (int s = 0; s < model.symbol_count(); ++s) {
    const SymbolInfo symbol = model.symbol(s);
    int64_t wanted = 0;
    if (is_named(symbol, "batch")) wanted = options.max_batch;
    if (is_named(symbol, "seq")) wanted = options.max_seq;
    if (wanted > symbol.max) {
      return Status::error(StatusCode::kOutOfRange,
                           "session limit %s = %lld exceeds the model's planned maximum %lld; "
                           "convert with a larger --max-%s",
                           symbol.name, static_cast<long long>(wanted),
                           static_cast<long long>(symbol.max), symbol.name);
    }
    limits[s] = wanted > 0 ? wanted : symbol.max;
  }
  return Status();
}

Shape actual_shape(const fb::Tensor& tensor, const int64_t* symbol_values) {
  Shape shape = max_shape(tensor);
  if (tensor.dim_symbols() == nullptr) return shape;
  for (int i = 0; i < shape.rank; ++i) {
    const int32_t s = tensor.dim_symbols()->Get(i);
    if (s >= 0) shape.dims[i] = symbol_values[s];
  }
  return shape;
}

// An optional input the caller left unset (fb::WhenAbsent): every element 1 or 0, at the
// dims this run's other inputs set.
void fill_absent_input(const fb::Tensor& t, const int64_t* symbol_values, uint8_t* arena) {
  const size_t count = static_cast<size_t>(actual_shape(t, symbol_values).element_count());
  const bool ones = t.when_absent() == fb::WhenAbsent_Ones;
  if (t.dtype() == fb::DType_I32) {
    int32_t* data = reinterpret_cast<int32_t*>(arena + t.arena_offset());
    std::fill(data, data + count, ones ? 1 : 0);
  } else {  // f32, as the verifier checked
    float* data = reinterpret_cast<float*>(arena + t.arena_offset());
    std::fill(data, data + count, ones ? 1.0f : 0.0f);
  }
}

// The positions this run appends to the KV caches (a cache-keeping op's input 0 dim 1),
// or an error when a cache has no room for them: checked before any op changes a cache.
Status kv_cache_room(const PreparedOp* ops, int first_op, int op_count, const int64_t* symbol_values, int64_t cached,
                     int64_t* appended) {
  for (int i = first_op; i < first_op + op_count; ++i) {
    const int64_t capacity = ops[i].kv_cache_capacity;
    if (capacity == 0) continue;
    *appended = actual_shape(*ops[i].operands[0].tensor, symbol_values).dims[1];
    if (cached + *appended > capacity) {
      return Status::error(StatusCode::kOutOfRange,
                           "sequence longer than planned: %lld cached + %lld new positions "
                           "exceed the KV cache's %lld; reset the session or convert with a "
                           "larger --max-seq",
                           static_cast<long long>(cached), static_cast<long long>(*appended),
                           static_cast<long long>(capacity));
    }
  }
  return Status();
}

// The largest scratch any op needs with `workers` threads, at the planned maximum
// (kSaturatedSize when a size from the file overflows).
size_t ops_workspace_bytes(const Model& model, int workers) {
  size_t largest = 0;
  for (const fb::Op* op : *model.schema().ops()) {
    const OpDef* def = find_op_def(model.schema(), *op);
    if (def->workspace_bytes == nullptr) continue;
    const size_t bytes = def->workspace_bytes(model.schema(), *op, workers);
    largest = bytes > largest ? bytes : largest;
  }
  return largest;
}

// Bit i set when one of the prepared ops [first, first + count) reads model input i.
uint64_t inputs_read(const Model& model, const PreparedOp* ops, int first, int count) {
  const fb::Model& schema = model.schema();
  uint64_t read = 0;
  for (int op = first; op < first + count; ++op) {
    for (int slot = 0; slot < ops[op].input_count; ++slot) {
      const fb::Tensor* t = ops[op].operands[slot].tensor;
      for (int i = 0; t != nullptr && i < model.input_count(); ++i) {
        if (schema.tensors()->Get(static_cast<uint32_t>(model.input_tensor(i))) == t) read |= uint64_t(1) << i;
      }
    }
  }
  return read;
}

// The verifier bounds arena_bytes by kMaxArenaBytes, so this neither wraps nor truncates.
size_t activations_bytes(const Model& model) {
  return static_cast<size_t>(align_up(model.arena_bytes(), kBufferAlignment));
}

// The prepared ops (PreparedOp per op, then their operands), after the activations.
size_t operand_count(const Model& model) {
  size_t count = 0;
  for (const fb::Op* op : *model.schema().ops()) count += op->inputs()->size() + op->outputs()->size();
  return count;
}
// Bytes reserved per record: their sizes with 64-bit pointers, on every target, so the
// arena a 64-bit host plans for a firmware (focal plan, the plan header) is the arena the
// 32-bit device asks for, byte for byte; a 32-bit target leaves 16 B per op and 8 B per
// operand unused.
constexpr size_t kPreparedOpReserve = 48;
constexpr size_t kPreparedOperandReserve = 16;
static_assert(sizeof(PreparedOp) <= kPreparedOpReserve, "a prepared op fits its reserve");
static_assert(sizeof(PreparedOperand) <= kPreparedOperandReserve, "a prepared operand fits its reserve");

// The verifier bounds the ops and their operands (kMaxOps, kMaxOperands): no overflow.
size_t prepared_ops_bytes(const Model& model) {
  const size_t ops = static_cast<size_t>(model.op_count()) * kPreparedOpReserve;
  const size_t bytes = ops + operand_count(model) * kPreparedOperandReserve;
  return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

// The kernel set SessionOptions::isa names, or the best (whose families resolve on first
// use, so that a firmware links only its ops' kernels).
Status choose_kernels(const SessionOptions& options, const kernels::KernelSet** set) {
  *set = &kernels::kBestKernels;
  if (options.isa == nullptr) return Status();
#if FOCAL_NAMED_KERNEL_SETS
  *set = kernels::kernel_set_named(options.isa);
  if (*set != nullptr) return Status();
  return Status::error(StatusCode::kUnsupported,
                       "instruction set '%s' is not in this build or this CPU cannot run it",
                       options.isa);
#else
  return Status::error(StatusCode::kUnsupported, "isa must be null on bare metal");
#endif
}

// The arena: the planned activations, the prepared ops, then the largest op scratch.
// `limits` gets the session's symbol limits. Computed once per session (create()).
Result<size_t> plan_arena(const Model& model, const SessionOptions& options, int64_t* limits) {
  FOCAL_RETURN_IF_ERROR(symbol_limits(model, options, limits));
  // The plan is made for the maximum shapes; smaller limits reuse the same offsets.
  const int workers = options.parallel != nullptr ? options.parallel->workers() : 1;
  const size_t total = saturating_add(saturating_add(activations_bytes(model), prepared_ops_bytes(model)),
                                      ops_workspace_bytes(model, workers));
  // Half the address space: no arena of that size can exist, and sums below stay exact.
  if (total > SIZE_MAX / 2) {
    return Status::error(StatusCode::kResourceExhausted,
                         "this model's arena (plan %llu bytes plus the ops' workspace) does not fit "
                         "this target's address space",
                         static_cast<unsigned long long>(model.arena_bytes()));
  }
  return total;
}

// Every op's definition, options and operands, resolved once into `ops` (at `at`, as
// prepared_ops_bytes() lays them out).
void prepare_ops(const Model& model, uint8_t* arena, uint8_t* at) {
  const fb::Model& schema = model.schema();
  PreparedOp* ops = reinterpret_cast<PreparedOp*>(at);
  const size_t ops_bytes = static_cast<size_t>(model.op_count()) * sizeof(PreparedOp);
  static_assert(sizeof(PreparedOp) % alignof(PreparedOperand) == 0, "operands follow the ops aligned");
  PreparedOperand* operand = reinterpret_cast<PreparedOperand*>(at + ops_bytes);
  const auto resolve = [&](int32_t index) {
    PreparedOperand prepared;
    if (index < 0) return prepared;  // an absent optional operand
    const fb::Tensor& t = *schema.tensors()->Get(static_cast<uint32_t>(index));
    prepared.tensor = &t;
    prepared.data = t.role() == fb::TensorRole_Constant
                        ? const_cast<uint8_t*>(model.data_segment() + t.data()->offset())
                        : static_cast<void*>(arena + t.arena_offset());
    return prepared;
  };
  for (int i = 0; i < model.op_count(); ++i) {
    const fb::Op& op = *schema.ops()->Get(static_cast<uint32_t>(i));
    const OpDef* def = find_op_def(schema, op);
    PreparedOp& p = *new (ops + i) PreparedOp{def, &op, op.options(), operand,
                                              static_cast<int>(op.inputs()->size()),
                                              static_cast<int>(op.outputs()->size()), 0};
    p.kv_cache_capacity = def->kv_cache_capacity != nullptr ? def->kv_cache_capacity(schema, op) : 0;
    for (const flatbuffers::Vector<int32_t>* list : {op.inputs(), op.outputs()}) {
      for (int32_t t : *list) *operand++ = resolve(t);
    }
  }
}

}  // namespace

Result<size_t> Session::required_arena_bytes(const Model& model, const SessionOptions& options) {
  int64_t limits[kMaxSymbols] = {};
  return plan_arena(model, options, limits);
}

Result<Session> Session::create(const Model& model, const SessionOptions& options, void* arena,
                                size_t arena_bytes) {
  Session session(&model, static_cast<uint8_t*>(arena));
  const Result<size_t> required = plan_arena(model, options, session.symbol_limit_);
  if (!required.ok()) return required.status();
  const size_t needed = required.value();
  if (arena == nullptr && needed > 0) {
    return Status::error(StatusCode::kInvalidArgument, "arena is null; %llu bytes needed",
                         static_cast<unsigned long long>(needed));
  }
  if (reinterpret_cast<uintptr_t>(arena) % kBufferAlignment != 0) {
    return Status::error(StatusCode::kInvalidArgument, "arena must be %zu-byte aligned",
                         kBufferAlignment);
  }
  if (arena_bytes < needed) {
    return Status::error(StatusCode::kResourceExhausted,
                         "arena of %zu bytes is too small: this model needs %zu", arena_bytes,
                         needed);
  }
  session.parallel_ = options.parallel;
  FOCAL_RETURN_IF_ERROR(choose_kernels(options, &session.kernels_));
  const size_t prepared_at = activations_bytes(model);
  prepare_ops(model, session.arena_, session.arena_ + prepared_at);
  session.ops_ = reinterpret_cast<const PreparedOp*>(session.arena_ + prepared_at);
  const size_t prepared_bytes = prepared_ops_bytes(model);
  session.workspace_ = session.arena_ + prepared_at + prepared_bytes;
  session.workspace_bytes_ = needed - prepared_at - prepared_bytes;
  for (int s = 0; s < kMaxSymbols; ++s) session.symbol_value_[s] = session.symbol_limit_[s];
  // Which inputs each stage reads, once, so a run (a decode step) does not rescan the graph.
  session.all_inputs_ = inputs_read(model, session.ops_, 0, model.op_count());
  for (int s = 0; s < model.stage_count(); ++s) {
    session.stage_inputs_[s] = inputs_read(model, session.ops_, model.stage(s).first_op, model.stage(s).op_count);
  }
  return session;
}

int Session::input_count() const { return model_->input_count(); }

const char* Session::isa() const {
  return kernels::kernels_of(*kernels_, &kernels::KernelSet::gemm)->isa;
}
int Session::output_count() const { return model_->output_count(); }

int Session::find_input(const char* name) const {
  if (name == nullptr) return -1;
  for (int i = 0; i < input_count(); ++i) {
    if (std::strcmp(model_->tensor(model_->input_tensor(i)).name, name) == 0) return i;
  }
  return -1;
}

int Session::find_output(const char* name) const {
  if (name == nullptr) return -1;
  for (int i = 0; i < output_count(); ++i) {
    if (std::strcmp(model_->tensor(model_->output_tensor(i)).name, name) == 0) return i;
  }
  return -1;
}

Status Session::set_input(int input_index, const Shape& shape, const void* data, size_t bytes) {
  if (input_index < 0 || input_index >= input_count()) {
    return Status::error(StatusCode::kInvalidArgument, "input %d does not exist (model has %d)",
                         input_index, input_count());
  }
  const fb::Tensor& t = *model_->schema().tensors()->Get(model_->input_tensor(input_index));
  const char* name = t.name()->c_str();
  if (shape.rank != static_cast<int>(t.shape()->size())) {
    return Status::error(StatusCode::kInvalidArgument, "input '%s' has rank %u, given %d", name,
                         static_cast<unsigned>(t.shape()->size()), shape.rank);
  }
  int64_t bound[kMaxSymbols];
  std::memcpy(bound, pending_symbol_, sizeof(bound));
  for (int i = 0; i < shape.rank; ++i) {
    const int32_t s = t.dim_symbols() ? t.dim_symbols()->Get(i) : -1;
    const int64_t d = shape.dims[i];
    if (s < 0) {
      if (d != t.shape()->Get(i)) {
        return Status::error(StatusCode::kInvalidArgument,
                             "input '%s' dim %d must be %lld, given %lld", name, i,
                             static_cast<long long>(t.shape()->Get(i)), static_cast<long long>(d));
      }
      continue;
    }
    const char* symbol = model_->symbol(s).name;
    if (d < 1 || d > symbol_limit_[s]) {
      return Status::error(
          StatusCode::kOutOfRange, "input '%s' dim %d (%s) = %lld, the session allows 1 to %lld",
          name, i, symbol, static_cast<long long>(d), static_cast<long long>(symbol_limit_[s]));
    }
    if (bound[s] != 0 && bound[s] != d) {
      return Status::error(StatusCode::kInvalidArgument,
                           "input '%s' has %s = %lld but another input set %lld", name, symbol,
                           static_cast<long long>(d), static_cast<long long>(bound[s]));
    }
    bound[s] = d;
  }
  const size_t expected =
      static_cast<size_t>(shape.element_count()) * dtype_size(to_dtype(t.dtype()));
  if (data == nullptr && expected > 0) {
    return Status::error(StatusCode::kInvalidArgument, "input '%s': data is null (%zu bytes needed)", name,
                         expected);
  }
  if (bytes != expected) {
    return Status::error(StatusCode::kInvalidArgument, "input '%s' needs %zu bytes, given %zu",
                         name, expected, bytes);
  }
  std::memcpy(arena_ + t.arena_offset(), data, bytes);
  std::memcpy(pending_symbol_, bound, sizeof(bound));
  inputs_set_ |= uint64_t(1) << input_index;
  return Status();
}

int Session::stage_count() const {
  const auto* stages = model_->schema().stages();
  return stages != nullptr ? static_cast<int>(stages->size()) : 1;
}

int Session::find_stage(const char* name) const {
  const auto* stages = model_->schema().stages();
  if (stages == nullptr || name == nullptr) return -1;
  for (uint32_t s = 0; s < stages->size(); ++s) {
    // Length and bytes, not strcmp: arm-none-eabi-gcc -Os misreads the FlatBuffers string
    // through strcmp as a 0-byte region (-Wstringop-overread).
    const flatbuffers::String* stage = stages->Get(s)->name();
    const size_t length = std::strlen(name);
    if (stage->size() == length && std::memcmp(stage->data(), name, length) == 0) return static_cast<int>(s);
  }
  return -1;
}

int64_t Session::cache_capacity() const {
  for (int i = 0; i < model_->op_count(); ++i) {
    const int64_t capacity = model_->op(i).kv_cache_capacity;
    if (capacity > 0) return capacity;
  }
  return 0;
}

double Session::op_flops(int op_index) const {
  if (op_index < 0 || op_index >= model_->op_count()) return 0.0;
  const fb::Op& op = *model_->schema().ops()->Get(static_cast<uint32_t>(op_index));
  const OpDef* def = find_op_def(model_->schema(), op);
  if (def->flops == nullptr) return 0.0;
  Shape shapes[kMaxOperands];
  const int count = static_cast<int>(op.inputs()->size());
  for (int k = 0; k < count; ++k) {
    const int32_t t = op.inputs()->Get(static_cast<uint32_t>(k));
    if (t >= 0) shapes[k] = actual_shape(*model_->schema().tensors()->Get(static_cast<uint32_t>(t)), symbol_value_);
  }
  return def->flops(OpShapes{model_->schema(), op, shapes, count, cached_length_});
}

double Session::op_int8_flops(int op_index) const {
  if (op_index < 0 || op_index >= model_->op_count()) return 0.0;
  const fb::Model& m = model_->schema();
  const fb::Op& op = *m.ops()->Get(static_cast<uint32_t>(op_index));
  if (op.inputs()->size() == 0 || op.inputs()->Get(0) < 0) return 0.0;
  const Shape x = actual_shape(*m.tensors()->Get(static_cast<uint32_t>(op.inputs()->Get(0))), symbol_value_);
  if (x.rank < 1 || x.dims[x.rank - 1] <= 0) return 0.0;
  const int64_t row_count = x.element_count() / x.dims[x.rank - 1];  // exact: the leading dims
  const double rows = static_cast<double>(row_count);
  double flops = 0.0;
  for (uint32_t k = 1; k < op.inputs()->size(); ++k) {
    const int32_t t = op.inputs()->Get(k);
    if (t < 0) continue;
    const fb::Tensor& w = *m.tensors()->Get(static_cast<uint32_t>(t));
    if (w.layout() != fb::TensorLayout_DenseInt8Dot) continue;
    flops += 2.0 * rows * double(w.shape()->Get(0)) * double(w.shape()->Get(1));  // [out, in]
  }
  return flops;
}

Status Session::capture_attention(int op_index, float* weights, size_t capacity) {
  if (weights == nullptr) {
    capture_op_ = -1;
    return Status();
  }
  if (model_->op(op_index).attention_heads == 0) {  // also an index out of range
    return Status::error(StatusCode::kInvalidArgument,
                         "op %d keeps no attention weights (a MultiHeadAttention op does); they "
                         "cannot be captured",
                         op_index);
  }
  capture_op_ = op_index;
  capture_weights_ = weights;
  capture_capacity_ = capacity;
  return Status();
}

Status Session::permute_state_batch(const int32_t* rows, int count) {
  int batch_symbol = -1;
  for (int s = 0; s < model_->symbol_count(); ++s) {
    if (is_named(model_->symbol(s), "batch")) batch_symbol = s;
  }
  if (rows == nullptr) return Status::error(StatusCode::kInvalidArgument, "permute_state_batch: rows is null");
  // States keep their rows across runs of any batch size, up to the session's limit.
  if (batch_symbol < 0 || count < 1 || count > symbol_limit_[batch_symbol]) {
    return Status::error(StatusCode::kInvalidArgument, "permute_state_batch: %d rows for a batch limit of %lld",
                         count, static_cast<long long>(batch_symbol < 0 ? 0 : symbol_limit_[batch_symbol]));
  }
  for (int i = 0; i < count; ++i) {
    if (rows[i] < 0 || rows[i] >= symbol_limit_[batch_symbol]) {
      return Status::error(StatusCode::kOutOfRange, "permute_state_batch: row %d is %d", i, static_cast<int>(rows[i]));
    }
  }
  for (const fb::Tensor* t : *model_->schema().tensors()) {
    if (t->role() != fb::TensorRole_State || t->dim_symbols() == nullptr ||
        t->dim_symbols()->Get(0) != batch_symbol) {
      continue;
    }
    const Shape shape = actual_shape(*t, symbol_value_);
    const size_t row_bytes = static_cast<size_t>(shape.element_count() / shape.dims[0]) *
                             dtype_size(to_dtype(t->dtype()));
    if (row_bytes * static_cast<size_t>(count) > workspace_bytes_) {
      return Status::error(StatusCode::kResourceExhausted,
                           "permute_state_batch: state '%s' needs %zu bytes of scratch, the session has %zu",
                           t->name()->c_str(), row_bytes * static_cast<size_t>(count), workspace_bytes_);
    }
    uint8_t* data = arena_ + t->arena_offset();
    bool unchanged = true;  // e.g. an encoder's memory, the same in every beam
    for (int i = 0; i < count && unchanged; ++i) {
      unchanged = rows[i] == i || std::memcmp(data + size_t(rows[i]) * row_bytes, data + size_t(i) * row_bytes,
                                              row_bytes) == 0;
    }
    if (unchanged) continue;
    for (int i = 0; i < count; ++i) {
      std::memcpy(workspace_ + size_t(i) * row_bytes, data + size_t(rows[i]) * row_bytes, row_bytes);
    }
    std::memcpy(data, workspace_, size_t(count) * row_bytes);
  }
  return Status();
}

Status Session::run() { return run_ops(0, model_->op_count(), all_inputs_); }

Status Session::run_stage(int stage_index) {
  const auto* stages = model_->schema().stages();
  if (stages == nullptr && stage_index == 0) return run();
  if (stages == nullptr || stage_index < 0 || stage_index >= static_cast<int>(stages->size())) {
    return Status::error(StatusCode::kInvalidArgument, "stage %d does not exist (model has %d)",
                         stage_index, stage_count());
  }
  const fb::Stage& stage = *stages->Get(static_cast<uint32_t>(stage_index));
  return run_ops(stage.first_op(), stage.op_count(), stage_inputs_[stage_index]);
}


Status Session::run_ops(int first_op, int op_count, uint64_t needed) {
  uint64_t absent = 0;  // optional inputs left unset: filled below, once the run goes ahead
  for (int i = 0; i < input_count(); ++i) {
    if ((needed & (uint64_t(1) << i)) && !(inputs_set_ & (uint64_t(1) << i))) {
      const TensorInfo info = model_->tensor(model_->input_tensor(i));
      if (info.absent_fill < 0) {
        return Status::error(StatusCode::kInvalidArgument, "input '%s' not set since the last run", info.name);
      }
      for (int d = 0; d < info.shape.rank; ++d) {  // its dims come from the inputs given
        const int s = info.dim_symbols[d];
        if (s >= 0 && pending_symbol_[s] == 0) {
          return Status::error(StatusCode::kInvalidArgument,
                               "optional input '%s' not set and no input given sets its %s: set it", info.name,
                               model_->symbol(s).name);
        }
      }
      absent |= uint64_t(1) << i;
    }
  }
  int64_t values[kMaxSymbols];
  for (int s = 0; s < kMaxSymbols; ++s) {
    values[s] = pending_symbol_[s] != 0 ? pending_symbol_[s] : symbol_value_[s];
  }

  const fb::Model& schema = model_->schema();
  const auto bind = [&](const PreparedOperand& operand) {
    BoundTensor bound;
    bound.data = operand.data;
    bound.tensor = operand.tensor;
    if (operand.tensor != nullptr) bound.shape = actual_shape(*operand.tensor, values);
    return bound;
  };
  int64_t appended = 0;
  const Status room = kv_cache_room(ops_, first_op, op_count, values, cached_length_, &appended);
  if (!room.ok()) {
    // Refused before anything ran: the inputs are spent, so a shorter retry can bind
    // its own sizes.
    for (int s = 0; s < kMaxSymbols; ++s) pending_symbol_[s] = 0;
    inputs_set_ &= ~needed;
    return room;
  }
  std::memcpy(symbol_value_, values, sizeof(values));
  for (int s = 0; s < kMaxSymbols; ++s) pending_symbol_[s] = 0;
  inputs_set_ &= ~needed;
  for (int i = 0; i < input_count(); ++i) {
    if (absent & (uint64_t(1) << i)) {
      fill_absent_input(*schema.tensors()->Get(static_cast<uint32_t>(model_->input_tensor(i))), values, arena_);
    }
  }

  if (observer_ != nullptr) observer_(-1, observer_user_);
  // Built once per run: each op binds its own operands and marks absent the slots it may
  // read past them (up to its definition's maximum), so no op sees another's.
  BoundTensor inputs[kMaxOperands];
  BoundTensor outputs[kMaxOperands];
  for (int i = first_op; i < first_op + op_count; ++i) {
    const PreparedOp& op = ops_[i];
    for (int k = 0; k < op.input_count; ++k) inputs[k] = bind(op.operands[k]);
    for (int k = op.input_count; k < op.def->max_inputs; ++k) inputs[k].data = nullptr;
    for (int k = 0; k < op.output_count; ++k) outputs[k] = bind(op.operands[op.input_count + k]);
    for (int k = op.output_count; k < op.def->outputs; ++k) outputs[k].data = nullptr;
    const bool capture = i == capture_op_;
    const OpRun run{schema,          *op.op,     inputs,     op.input_count,
                    outputs,         op.output_count,
                    workspace_,      workspace_bytes_, parallel_,
                    cached_length_,  capture ? capture_weights_ : nullptr,
                    capture ? capture_capacity_ : 0, op.options, *kernels_};
    const Status status = op.def->run(run);
    if (!status.ok()) {
      // The caches may hold part of this run's keys past cached_length_: harmless, as
      // only positions below it are ever read.
      return status;
    }
    if (observer_ != nullptr) observer_(i, observer_user_);
  }
  cached_length_ += appended;
  return Status();
}

TensorView Session::tensor_view(int tensor_index) const {
  if (tensor_index < 0 || tensor_index >= model_->tensor_count()) return TensorView();
  const fb::Tensor& t = *model_->schema().tensors()->Get(tensor_index);
  TensorView view;
  view.name = t.name()->c_str();
  view.dtype = to_dtype(t.dtype());
  view.shape = actual_shape(t, symbol_value_);
  view.data = t.role() == fb::TensorRole_Constant
                  ? const_cast<uint8_t*>(model_->data_segment() + t.data()->offset())
                  : static_cast<void*>(arena_ + t.arena_offset());
  return view;
}

TensorView Session::output(int output_index) const {
  if (output_index < 0 || output_index >= output_count()) return TensorView();
  return tensor_view(model_->output_tensor(output_index));
}

}  // namespace focal
