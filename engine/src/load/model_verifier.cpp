#include "load/model_verifier.h"

#include <cstdarg>
#include <cstdlib>
#include <cstring>

#include "focal/gemm.h"
#include "focal/model.h"
#include "focal/internal/graph.h"
#include "ops/op.h"
#include "support/format_message.h"

namespace focal {
namespace {

const char* name_of(const fb::Tensor& t) { return t.name()->c_str(); }
uint32_t rank_of(const fb::Tensor& t) { return t.shape()->size(); }

Status invalid(const char* format, ...) __attribute__((format(printf, 1, 2)));
Status invalid(const char* format, ...) {
  char message[Status::kMaxMessage];
  va_list args;
  va_start(args, format);
  format_message(message, sizeof(message), format, args);
  va_end(args);
  return Status::error(StatusCode::kInvalidModel, "%s", message);
}

struct FileLayout {
  size_t size;
  uint64_t data_offset;
};

// A buffer must be 64-byte aligned, exactly `expected` bytes long and inside the file.
Status check_buffer(const FileLayout& file, const fb::BufferRef* ref, uint64_t expected,
                    const char* what, const char* name) {
  if (ref == nullptr) return invalid("%s '%s' has no data", what, name);
  if (ref->offset() % kBufferAlignment != 0) {
    return invalid("%s '%s': data offset %llu is not a multiple of %zu", what, name,
                   static_cast<unsigned long long>(ref->offset()), kBufferAlignment);
  }
  if (ref->size() != expected) {
    return invalid("%s '%s': data is %llu bytes, its shape and dtype need %llu", what, name,
                   static_cast<unsigned long long>(ref->size()),
                   static_cast<unsigned long long>(expected));
  }
  const uint64_t available = file.size > file.data_offset ? file.size - file.data_offset : 0;
  if (ref->offset() > available || ref->size() > available - ref->offset()) {
    return invalid("%s '%s': data [%llu, +%llu) lies outside the file's %llu data bytes", what,
                   name, static_cast<unsigned long long>(ref->offset()),
                   static_cast<unsigned long long>(ref->size()),
                   static_cast<unsigned long long>(available));
  }
  return Status();
}

Status check_symbols(const fb::Model& model) {
  const auto* symbols = model.symbols();
  if (symbols == nullptr) return Status();
  if (symbols->size() > static_cast<uint32_t>(kMaxSymbols)) {
    return invalid("%u symbols, at most %d supported", static_cast<unsigned>(symbols->size()),
                   kMaxSymbols);
  }
  for (const fb::Symbol* s : *symbols) {
    if (s->max() < 1 || s->max() > (int64_t(1) << 31)) {
      return invalid("symbol '%s' has maximum %lld, expected 1 to 2^31", s->name()->c_str(),
                     static_cast<long long>(s->max()));
    }
  }
  return Status();
}

// FlatBuffers' Verifier aligns a vector's length to 4 bytes but not 8-byte elements: a
// hostile file can place a [long] vector at an address that is 4 mod 8, and reading it
// is undefined behaviour (and an alignment fault for 64-bit loads on some Cortex-M
// cores). Every [long] vector the engine reads goes through this check first.
bool aligned_longs(const flatbuffers::Vector<int64_t>* v) {
  return reinterpret_cast<uintptr_t>(v->data()) % alignof(int64_t) == 0;
}

Status check_tensor_shape(const fb::Model& model, const fb::Tensor& t, uint64_t* bytes) {
  if (!aligned_longs(t.shape())) return invalid("tensor '%s' has a misaligned shape vector", name_of(t));
  const uint32_t rank = t.shape()->size();
  if (rank < 1 || rank > static_cast<uint32_t>(kMaxRank)) {
    return invalid("tensor '%s' has rank %u, expected 1 to %d", name_of(t),
                   static_cast<unsigned>(rank), kMaxRank);
  }
  for (uint32_t i = 0; i < rank; ++i) {
    const int64_t d = t.shape()->Get(i);
    if (d < 1 || d > kMaxDim) {
      return invalid("tensor '%s' dim %u is %lld, every dim must be from 1 to %lld", name_of(t),
                     static_cast<unsigned>(i), static_cast<long long>(d),
                     static_cast<long long>(kMaxDim));
    }
  }
  if (!tensor_max_bytes(t, bytes)) {
    return invalid("tensor '%s': byte size of its shape overflows", name_of(t));
  }
  if (t.dim_symbols() == nullptr) return Status();
  if (t.dim_symbols()->size() != rank) {
    return invalid("tensor '%s' has %u dim symbols for rank %u", name_of(t),
                   static_cast<unsigned>(t.dim_symbols()->size()), static_cast<unsigned>(rank));
  }
  const uint32_t symbol_count = model.symbols() ? model.symbols()->size() : 0;
  for (uint32_t i = 0; i < rank; ++i) {
    const int32_t s = t.dim_symbols()->Get(i);
    if (s == -1) continue;
    if (s < 0 || static_cast<uint32_t>(s) >= symbol_count) {
      return invalid("tensor '%s' dim %u names symbol %d, the model has %u", name_of(t),
                     static_cast<unsigned>(i), static_cast<int>(s),
                     static_cast<unsigned>(symbol_count));
    }
    if (t.shape()->Get(i) != model.symbols()->Get(s)->max()) {
      return invalid("tensor '%s' dim %u is %lld, its symbol '%s' plans %lld", name_of(t),
                     static_cast<unsigned>(i), static_cast<long long>(t.shape()->Get(i)),
                     model.symbols()->Get(s)->name()->c_str(),
                     static_cast<long long>(model.symbols()->Get(s)->max()));
    }
  }
  return Status();
}

Status check_quantization(const fb::Tensor& t) {
  // Packed dense weights carry their int8 scales inside their bytes.
  if (t.dtype() != fb::DType_I8 || t.layout() == fb::TensorLayout_DensePacked) return Status();
  const fb::Quantization* q = t.quantization();
  if (q == nullptr || q->scales() == nullptr) {
    return invalid("int8 tensor '%s' has no quantization scales", name_of(t));
  }
  const int32_t axis = q->axis();
  if (axis < 0 || static_cast<uint32_t>(axis) >= t.shape()->size() ||
      static_cast<int64_t>(q->scales()->size()) != t.shape()->Get(axis)) {
    return invalid("int8 tensor '%s': scales must be one per channel of a valid axis", name_of(t));
  }
  return Status();
}

Status check_arena_placement(const fb::Model& model, const fb::Tensor& t, uint64_t bytes) {
  if (t.data() != nullptr && t.data()->size() != 0) {
    return invalid("%s tensor '%s' must not carry data", fb::EnumNameTensorRole(t.role()),
                   name_of(t));
  }
  const fb::MemoryPlan& plan = *model.plan();
  if (t.arena_offset() % plan.alignment() != 0 || t.arena_offset() > plan.arena_bytes() ||
      bytes > plan.arena_bytes() - t.arena_offset()) {
    return invalid(
        "tensor '%s' at arena offset %llu (+%llu bytes) is misaligned or beyond "
        "the planned arena of %llu bytes",
        name_of(t), static_cast<unsigned long long>(t.arena_offset()),
        static_cast<unsigned long long>(bytes),
        static_cast<unsigned long long>(plan.arena_bytes()));
  }
  return Status();
}

Status check_tensors(const fb::Model& model, const FileLayout& file) {
  const auto& tensors = *model.tensors();
  if (tensors.size() > kMaxTensors) {
    return invalid("%u tensors, at most %u supported", static_cast<unsigned>(tensors.size()),
                   static_cast<unsigned>(kMaxTensors));
  }
  for (const fb::Tensor* t : tensors) {
    if (t->dtype() > fb::DType_MAX)
      return invalid("tensor '%s' has unknown dtype %d", name_of(*t), t->dtype());
    if (t->role() > fb::TensorRole_MAX)
      return invalid("tensor '%s' has unknown role %d", name_of(*t), t->role());
    uint64_t bytes = 0;
    FOCAL_RETURN_IF_ERROR(check_tensor_shape(model, *t, &bytes));
    FOCAL_RETURN_IF_ERROR(check_quantization(*t));
    if (t->layout() > fb::TensorLayout_MAX ||
        (t->layout() != fb::TensorLayout_RowMajor && t->role() != fb::TensorRole_Constant)) {
      return invalid("tensor '%s' has layout %d, which only constants may use", name_of(*t),
                     static_cast<int>(t->layout()));
    }
    if (t->layout() == fb::TensorLayout_DensePacked) {
      bytes = rank_of(*t) == 2 ? packed_dense_weights_bytes(to_dtype(t->dtype()), static_cast<size_t>(t->shape()->Get(0)),
                                                             static_cast<size_t>(t->shape()->Get(1)))
                               : 0;
      if (bytes == 0) {
        return invalid("packed dense weight '%s' must be [out, in] of f32, f16, bf16 or i8", name_of(*t));
      }
    }
    if (t->role() == fb::TensorRole_Constant) {
      if (t->dim_symbols() != nullptr) {
        for (int32_t s : *t->dim_symbols()) {
          if (s != -1) return invalid("constant '%s' cannot have symbolic dims", name_of(*t));
        }
      }
      FOCAL_RETURN_IF_ERROR(check_buffer(file, t->data(), bytes, "constant", name_of(*t)));
    } else {
      FOCAL_RETURN_IF_ERROR(check_arena_placement(model, *t, bytes));
    }
  }
  return Status();
}

// Constants must not share bytes: each weight is its own, so no two can alias.
Status check_constants_disjoint(const fb::Model& model) {
  const auto& tensors = *model.tensors();
  for (uint32_t a = 0; a < tensors.size(); ++a) {
    const fb::Tensor& ta = *tensors.Get(a);
    if (ta.role() != fb::TensorRole_Constant) continue;
    for (uint32_t b = a + 1; b < tensors.size(); ++b) {
      const fb::Tensor& tb = *tensors.Get(b);
      if (tb.role() != fb::TensorRole_Constant) continue;
      const uint64_t a0 = ta.data()->offset(), a1 = a0 + ta.data()->size();
      const uint64_t b0 = tb.data()->offset(), b1 = b0 + tb.data()->size();
      if (a0 < b1 && b0 < a1) {
        return invalid("constants '%s' and '%s' have overlapping data", name_of(ta), name_of(tb));
      }
    }
  }
  return Status();
}

Status check_plan_header(const fb::Model& model) {
  const uint32_t alignment = model.plan()->alignment();
  if (alignment < 16 || alignment > kBufferAlignment || (alignment & (alignment - 1)) != 0) {
    return invalid("memory plan alignment %u must be a power of two from 16 to %zu",
                   static_cast<unsigned>(alignment), kBufferAlignment);
  }
  return Status();
}

// After the tensors, so a file whose only fault is one tensor's shape is told about it.
Status check_arena_limit(const fb::Model& model) {
  if (model.plan()->arena_bytes() > kMaxArenaBytes) {
    return invalid("memory plan arena of %llu bytes exceeds this target's limit of %llu",
                   static_cast<unsigned long long>(model.plan()->arena_bytes()),
                   static_cast<unsigned long long>(kMaxArenaBytes));
  }
  return Status();
}

// Model inputs and outputs: in range, of the right role, listed once, and every tensor
// with an input or output role is listed.
Status check_io_list(const fb::Model& model, const flatbuffers::Vector<int32_t>& list,
                     fb::TensorRole role, uint32_t max_count) {
  const auto& tensors = *model.tensors();
  const char* what = fb::EnumNameTensorRole(role);
  if (list.size() > max_count)
    return invalid("%u %ss, at most %u", static_cast<unsigned>(list.size()), what,
                   static_cast<unsigned>(max_count));
  uint32_t role_count = 0;
  for (const fb::Tensor* t : tensors) role_count += t->role() == role ? 1 : 0;
  if (role_count != list.size()) {
    return invalid("%u tensors have role %s but the model lists %u",
                   static_cast<unsigned>(role_count), what, static_cast<unsigned>(list.size()));
  }
  for (uint32_t i = 0; i < list.size(); ++i) {
    const int32_t t = list.Get(i);
    if (t < 0 || static_cast<uint32_t>(t) >= tensors.size()) {
      return invalid("%s %u names tensor %d, the model has %u", what, static_cast<unsigned>(i),
                     static_cast<int>(t), static_cast<unsigned>(tensors.size()));
    }
    if (tensors.Get(t)->role() != role) {
      return invalid("%s %u is tensor '%s' whose role is %s", what, static_cast<unsigned>(i),
                     name_of(*tensors.Get(t)), fb::EnumNameTensorRole(tensors.Get(t)->role()));
    }
    for (uint32_t j = 0; j < i; ++j) {
      if (list.Get(j) == t) return invalid("tensor '%s' listed twice", name_of(*tensors.Get(t)));
    }
  }
  return Status();
}

// Scratch the verifier needs for one pass over the graph; freed on return.
struct GraphScratch {
  Lifetime* lifetimes = nullptr;
  uint8_t* defined = nullptr;
  ~GraphScratch() {
    std::free(lifetimes);
    std::free(defined);
  }
};

Status check_op_operands(const fb::Model& model, int index, const OpDef& def, uint8_t* defined) {
  const fb::Op& op = *model.ops()->Get(index);
  const OpCheck c{model, op, index};
  const int inputs = static_cast<int>(op.inputs()->size());
  const int outputs = static_cast<int>(op.outputs()->size());
  const int min_outputs = def.min_outputs > 0 ? def.min_outputs : def.outputs;
  if (inputs < def.min_inputs || inputs > def.max_inputs || outputs < min_outputs ||
      outputs > def.outputs) {
    return c.fail("has %d inputs and %d outputs, expected %d to %d and %d to %d", inputs, outputs,
                  def.min_inputs, def.max_inputs, min_outputs, def.outputs);
  }
  const uint32_t tensor_count = model.tensors()->size();
  for (int slot = 0; slot < inputs; ++slot) {
    const int32_t t = op.inputs()->Get(static_cast<uint32_t>(slot));
    if (t == -1 && slot < 32 && (def.optional_inputs >> slot & 1u)) continue;
    if (t < 0 || static_cast<uint32_t>(t) >= tensor_count) {
      return c.fail("input names tensor %d, the model has %u", static_cast<int>(t),
                    static_cast<unsigned>(tensor_count));
    }
    if (!defined[t]) {
      return c.fail("reads tensor '%s' before any op writes it", name_of(*model.tensors()->Get(t)));
    }
  }
  for (int32_t t : *op.outputs()) {
    if (t < 0 || static_cast<uint32_t>(t) >= tensor_count) {
      return c.fail("output names tensor %d, the model has %u", static_cast<int>(t),
                    static_cast<unsigned>(tensor_count));
    }
    const fb::Tensor& out = *model.tensors()->Get(t);
    // States are defined from the start and may be updated (an earlier stage fills them).
    if (out.role() == fb::TensorRole_State) continue;
    if (defined[t]) return c.fail("writes tensor '%s', which is already defined", name_of(out));
    defined[t] = 1;
  }
  return def.check(c);
}

// An op without a definition: a type newer than this engine, or one this build left
// out to save flash (focal_select_ops), which the message names so the fix is clear.
Status unsupported_op(uint32_t index, const fb::Op& op) {
  const char* name = op.name() ? op.name()->c_str() : "";
  const fb::OpOptions type = op.options_type();
  if (type > fb::OpOptions_NONE && type <= fb::OpOptions_MAX && op.options() != nullptr) {
    const char* options = fb::EnumNameOpOptions(type);  // "<Kind>Options"
    const int kind_length = static_cast<int>(std::strlen(options)) - 7;
    return Status::error(StatusCode::kUnsupported,
                         "op %u '%s' is a %.*s op, which this build leaves out (add it to focal_select_ops)",
                         static_cast<unsigned>(index), name, kind_length, options);
  }
  return Status::error(StatusCode::kUnsupported, "op %u '%s' has op type %d, unknown to this engine",
                       static_cast<unsigned>(index), name, static_cast<int>(type));
}

Status check_ops(const fb::Model& model, GraphScratch& scratch) {
  const auto& ops = *model.ops();
  if (ops.size() > kMaxOps)
    return invalid("%u ops, at most %u supported", static_cast<unsigned>(ops.size()),
                   static_cast<unsigned>(kMaxOps));
  const uint32_t tensor_count = model.tensors()->size();
  for (uint32_t t = 0; t < tensor_count; ++t) {
    const auto role = model.tensors()->Get(t)->role();
    scratch.defined[t] = role == fb::TensorRole_Constant || role == fb::TensorRole_Input ||
                         role == fb::TensorRole_State;
  }
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const fb::Op& op = *ops.Get(i);
    const OpDef* def = find_op_def(op.options_type());
    if (def == nullptr || op.options() == nullptr) return unsupported_op(i, op);
    FOCAL_RETURN_IF_ERROR(check_op_operands(model, static_cast<int>(i), *def, scratch.defined));
  }
  for (int32_t t : *model.outputs()) {
    if (!scratch.defined[t]) {
      return invalid("output '%s' is never written", name_of(*model.tensors()->Get(t)));
    }
  }
  return Status();
}

// Stages: contiguous op ranges that cover the graph in order, and only states carry
// values from one stage to another (a stage runs alone, so its activations are gone
// by the time another stage runs). `producer_stage` is scratch, one byte per tensor.
Status check_stages(const fb::Model& model, uint8_t* producer_stage) {
  if (model.stages() == nullptr) return Status();
  const auto& stages = *model.stages();
  const uint32_t op_count = model.ops()->size();
  if (stages.size() < 1 || stages.size() > static_cast<uint32_t>(kMaxStages)) {
    return invalid("%u stages, expected 1 to %d", static_cast<unsigned>(stages.size()),
                   kMaxStages);
  }
  int64_t next = 0;
  for (const fb::Stage* stage : stages) {
    if (stage->first_op() != next || stage->op_count() < 1 ||
        stage->first_op() + int64_t(stage->op_count()) > int64_t(op_count)) {
      return invalid("stage '%s' (ops %d+%d) does not continue the previous one at op %lld",
                     stage->name()->c_str(), static_cast<int>(stage->first_op()),
                     static_cast<int>(stage->op_count()), static_cast<long long>(next));
    }
    next = stage->first_op() + int64_t(stage->op_count());
  }
  if (next != int64_t(op_count)) {
    return invalid("stages cover %lld of %u ops", static_cast<long long>(next),
                   static_cast<unsigned>(op_count));
  }
  for (uint32_t s = 0; s < stages.size(); ++s) {
    const fb::Stage& stage = *stages.Get(s);
    for (int i = stage.first_op(); i < stage.first_op() + stage.op_count(); ++i) {
      for (int32_t t : *model.ops()->Get(static_cast<uint32_t>(i))->outputs()) {
        producer_stage[t] = static_cast<uint8_t>(s);
      }
    }
  }
  for (uint32_t s = 0; s < stages.size(); ++s) {
    const fb::Stage& stage = *stages.Get(s);
    for (int i = stage.first_op(); i < stage.first_op() + stage.op_count(); ++i) {
      for (int32_t t : *model.ops()->Get(static_cast<uint32_t>(i))->inputs()) {
        if (t < 0) continue;
        const fb::Tensor& tensor = *model.tensors()->Get(t);
        const bool carried = tensor.role() == fb::TensorRole_Activation ||
                             tensor.role() == fb::TensorRole_Output;
        if (carried && producer_stage[t] != s) {
          return invalid("stage '%s' reads '%s' from another stage; only states cross stages",
                         stage.name()->c_str(), name_of(tensor));
        }
      }
    }
  }
  return Status();
}

// Tensors alive at the same time must not share arena bytes.
Status check_plan_overlaps(const fb::Model& model, GraphScratch& scratch) {
  compute_lifetimes(model, scratch.lifetimes);
  const auto& tensors = *model.tensors();
  for (uint32_t a = 0; a < tensors.size(); ++a) {
    const fb::Tensor& ta = *tensors.Get(a);
    if (ta.role() == fb::TensorRole_Constant) continue;
    uint64_t a_bytes = 0;
    tensor_max_bytes(ta, &a_bytes);
    for (uint32_t b = a + 1; b < tensors.size(); ++b) {
      const fb::Tensor& tb = *tensors.Get(b);
      if (tb.role() == fb::TensorRole_Constant) continue;
      if (!lifetimes_overlap(scratch.lifetimes[a], scratch.lifetimes[b])) continue;
      uint64_t b_bytes = 0;
      tensor_max_bytes(tb, &b_bytes);
      const uint64_t a0 = ta.arena_offset(), b0 = tb.arena_offset();
      if (a0 < b0 + b_bytes && b0 < a0 + a_bytes) {
        return invalid(
            "memory plan puts '%s' and '%s' in the same arena bytes while both are "
            "alive",
            name_of(ta), name_of(tb));
      }
    }
  }
  return Status();
}

Status check_tensor_value(const fb::Model& model, const FileLayout& file,
                          const fb::TensorValue& value, int case_index) {
  const auto& tensors = *model.tensors();
  if (value.tensor() < 0 || static_cast<uint32_t>(value.tensor()) >= tensors.size()) {
    return invalid("self-test %d names tensor %d, the model has %u", case_index,
                   static_cast<int>(value.tensor()), static_cast<unsigned>(tensors.size()));
  }
  const fb::Tensor& t = *tensors.Get(value.tensor());
  if (!aligned_longs(value.shape())) {
    return invalid("self-test %d: the value of '%s' has a misaligned shape vector", case_index, name_of(t));
  }
  if (value.shape()->size() != t.shape()->size()) {
    return invalid("self-test %d: value of '%s' has rank %u, the tensor %u", case_index, name_of(t),
                   static_cast<unsigned>(value.shape()->size()),
                   static_cast<unsigned>(t.shape()->size()));
  }
  uint64_t bytes = dtype_size(to_dtype(t.dtype()));
  for (uint32_t i = 0; i < value.shape()->size(); ++i) {
    const int64_t d = value.shape()->Get(i);
    const bool symbolic = t.dim_symbols() && t.dim_symbols()->Get(i) != -1;
    if (d < 1 || d > t.shape()->Get(i) || (!symbolic && d != t.shape()->Get(i))) {
      return invalid("self-test %d: value of '%s' has dim %u = %lld, outside its plan", case_index,
                     name_of(t), static_cast<unsigned>(i), static_cast<long long>(d));
    }
    bytes *= static_cast<uint64_t>(d);  // <= the verified maximum, cannot overflow
  }
  return check_buffer(file, value.data(), bytes, "self-test value of", name_of(t));
}

Status check_self_tests(const fb::Model& model, const FileLayout& file) {
  if (model.self_tests() == nullptr) return Status();
  int index = 0;
  for (const fb::SelfTestCase* c : *model.self_tests()) {
    if (c->inputs() == nullptr || c->expected_outputs() == nullptr) {
      return invalid("self-test %d lacks inputs or expected outputs", index);
    }
    for (const fb::TensorValue* v : *c->inputs()) {
      FOCAL_RETURN_IF_ERROR(check_tensor_value(model, file, *v, index));
      if (model.tensors()->Get(v->tensor())->role() != fb::TensorRole_Input) {
        return invalid("self-test %d sets a tensor that is not an input", index);
      }
    }
    for (const fb::TensorValue* v : *c->expected_outputs()) {
      FOCAL_RETURN_IF_ERROR(check_tensor_value(model, file, *v, index));
      if (model.tensors()->Get(v->tensor())->role() != fb::TensorRole_Output) {
        return invalid("self-test %d expects a tensor that is not an output", index);
      }
    }
    if (!(c->atol() >= 0.0f) || !(c->rtol() >= 0.0f)) {
      return invalid("self-test %d has a negative or NaN tolerance", index);
    }
    ++index;
  }
  return Status();
}

// A tokenizer's lookup tables are searched by the engine, so they must be what they
// claim: sorted_vocab a permutation of the ids in strictly increasing string order, merge
// rules in range and strictly ordered by (left, right), special ids in range.
Status check_tokenizer(const fb::Tokenizer* t, const char* which) {
  if (t == nullptr) return Status();
  if (t->vocab() == nullptr || t->sorted_vocab() == nullptr || t->sorted_vocab()->size() != t->vocab()->size()) {
    return invalid("%s: vocab and sorted_vocab must be present and the same size", which);
  }
  const int64_t size = t->vocab()->size();
  for (int32_t id : {t->unk_id(), t->bos_id(), t->eos_id(), t->pad_id()}) {
    if (id < -1 || id >= size) return invalid("%s: special token id %d outside the vocabulary", which, static_cast<int>(id));
  }
  const flatbuffers::String* previous = nullptr;
  for (int32_t id : *t->sorted_vocab()) {
    if (id < 0 || id >= size) return invalid("%s: sorted_vocab names id %d of %lld", which, static_cast<int>(id),
                                              static_cast<long long>(size));
    const flatbuffers::String* s = t->vocab()->Get(static_cast<uint32_t>(id));
    if (s == nullptr) return invalid("%s: vocab entry %d is missing", which, static_cast<int>(id));
    if (previous != nullptr) {
      const size_t n = previous->size() < s->size() ? previous->size() : s->size();
      const int c = std::memcmp(previous->data(), s->data(), n);
      if (c > 0 || (c == 0 && previous->size() >= s->size())) {
        return invalid("%s: sorted_vocab is not in strictly increasing order at id %d", which, static_cast<int>(id));
      }
    }
    previous = s;  // strictly increasing strings also rule out repeated ids
  }
  if (t->merge_rules() != nullptr) {
    int64_t last_left = -1, last_right = -1;
    for (const fb::MergeRule* r : *t->merge_rules()) {
      if (r->left() < 0 || r->left() >= size || r->right() < 0 || r->right() >= size || r->merged() < 0 ||
          r->merged() >= size) {
        return invalid("%s: a merge rule names a token outside the vocabulary", which);
      }
      if (r->left() < last_left || (r->left() == last_left && r->right() <= last_right)) {
        return invalid("%s: merge rules are not strictly ordered by (left, right)", which);
      }
      last_left = r->left();
      last_right = r->right();
    }
  } else if (t->kind() == fb::TokenizerKind_ByteLevelBpe) {
    return invalid("%s: a byte-level BPE tokenizer needs merge rules", which);
  }
  return Status();
}

}  // namespace

Status verify_model_meaning(const fb::Model& model, size_t size, uint64_t data_offset) {
  const FileLayout file{size, data_offset};
  FOCAL_RETURN_IF_ERROR(check_symbols(model));
  FOCAL_RETURN_IF_ERROR(check_plan_header(model));
  FOCAL_RETURN_IF_ERROR(check_tensors(model, file));
  FOCAL_RETURN_IF_ERROR(check_arena_limit(model));
  FOCAL_RETURN_IF_ERROR(check_constants_disjoint(model));
  FOCAL_RETURN_IF_ERROR(
      check_io_list(model, *model.inputs(), fb::TensorRole_Input, kMaxModelInputs));
  FOCAL_RETURN_IF_ERROR(check_io_list(model, *model.outputs(), fb::TensorRole_Output, kMaxTensors));

  GraphScratch scratch;
  const uint32_t n = model.tensors()->size();
  scratch.lifetimes = static_cast<Lifetime*>(std::malloc(sizeof(Lifetime) * (n + 1)));
  scratch.defined = static_cast<uint8_t*>(std::malloc(n + 1));
  if (scratch.lifetimes == nullptr || scratch.defined == nullptr) {
    return Status::error(StatusCode::kResourceExhausted,
                         "no memory for verifying a graph of %u tensors", static_cast<unsigned>(n));
  }
  FOCAL_RETURN_IF_ERROR(check_ops(model, scratch));
  FOCAL_RETURN_IF_ERROR(check_stages(model, scratch.defined));
  FOCAL_RETURN_IF_ERROR(check_plan_overlaps(model, scratch));
  FOCAL_RETURN_IF_ERROR(check_tokenizer(model.tokenizer(), "tokenizer"));
  FOCAL_RETURN_IF_ERROR(check_tokenizer(model.target_tokenizer(), "target tokenizer"));
  return check_self_tests(model, file);
}

}  // namespace focal
