// Loading: the checks run in the order that lets each one trust the previous.
#include "focal/model.h"

#include <cstring>

#include "focal/internal/checksum.h"
#include "focal/internal/graph.h"
#include "load/model_verifier.h"
#include "ops/op.h"
#include "ops/options_verifier.h"

namespace focal {
namespace {

constexpr size_t kPrefixBytes = sizeof(flatbuffers::uoffset_t);

Status check_envelope(const uint8_t* bytes, size_t size, uint64_t* prefixed_size) {
  if (size < 16) {
    return Status::error(StatusCode::kInvalidModel, "file of %zu bytes is too small", size);
  }
  if (bytes == nullptr) return Status::error(StatusCode::kInvalidArgument, "model bytes are null");
  if (reinterpret_cast<uintptr_t>(bytes) % kBufferAlignment != 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "model bytes must be %zu-byte aligned for in-place weights",
                         kBufferAlignment);
  }
  if (!fb::SizePrefixedModelBufferHasIdentifier(bytes)) {
    char found[5] = {};
    std::memcpy(found, bytes + kPrefixBytes + 4, 4);
    for (int i = 0; i < 4; ++i) found[i] = (found[i] >= 32 && found[i] < 127) ? found[i] : '?';
    return Status::error(StatusCode::kInvalidModel,
                         "not a focal model: file identifier '%s', expected '%s'", found,
                         fb::ModelIdentifier());
  }
  const uint64_t flatbuffer_size = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(bytes);
  if (flatbuffer_size > size - kPrefixBytes) {
    return Status::error(StatusCode::kInvalidModel,
                         "header says %llu bytes of model structure, the file has %zu",
                         static_cast<unsigned long long>(flatbuffer_size), size);
  }
  *prefixed_size = flatbuffer_size + kPrefixBytes;
  return Status();
}

// The model's FlatBuffers structure: what the schema's generated verifier checks
// (fb::VerifySizePrefixedModelBuffer), field for field, except that each op's options
// table is verified by the op's own form (verify_op_options, ops/op_selection.h) rather
// than by the generated union verifier, fb::VerifyOpOptions, which reaches the verifier
// of every options table and so linked all of them into every firmware. Model and Op are
// written out here for that: a field added to either in schema/focal.fbs is added here
// as the generated Verify in focal_generated.h checks it. tests/test_options_verifier.cpp
// checks that every damage the generated verifier refuses is refused here too.

// fb::Op::Verify, with the options table last: the form the op runs depends on its
// operands' tensors (runs_int8), which the model's verifier has checked before its ops.
bool verify_op(flatbuffers::Verifier& verifier, const fb::Model& model, const fb::Op& op) {
  const flatbuffers::Table& t = table_fields(&op);
  return t.VerifyTableStart(verifier) && t.VerifyOffset(verifier, fb::Op::VT_NAME) &&
         verifier.VerifyString(op.name()) &&
         t.VerifyField<uint8_t>(verifier, fb::Op::VT_OPTIONS_TYPE, 1) &&
         t.VerifyOffsetRequired(verifier, fb::Op::VT_OPTIONS) &&
         t.VerifyOffsetRequired(verifier, fb::Op::VT_INPUTS) && verifier.VerifyVector(op.inputs()) &&
         t.VerifyOffsetRequired(verifier, fb::Op::VT_OUTPUTS) &&
         verifier.VerifyVector(op.outputs()) &&
         verify_op_options(verifier, op.options_type(), op.options(), runs_int8(model, op)) &&
         verifier.EndTable();
}

bool verify_ops(flatbuffers::Verifier& verifier, const fb::Model& model) {
  for (const fb::Op* op : *model.ops()) {
    if (!verify_op(verifier, model, *op)) return false;
  }
  return true;
}

// The root as flatbuffers::Verifier::VerifyBufferFromStart<T> takes it: T::Verify is
// fb::Model::Verify with verify_ops for the ops.
struct ModelStructure {
  bool Verify(flatbuffers::Verifier& verifier) const {
    const auto& model = *reinterpret_cast<const fb::Model*>(this);
    const flatbuffers::Table& t = table_fields(&model);
    using M = fb::Model;
    return t.VerifyTableStart(verifier) && t.VerifyField<uint32_t>(verifier, M::VT_VERSION, 4) &&
           t.VerifyField<fb::Checksum>(verifier, M::VT_CHECKSUM, 4) &&
           t.VerifyOffset(verifier, M::VT_SYMBOLS) && verifier.VerifyVector(model.symbols()) &&
           verifier.VerifyVectorOfTables(model.symbols()) &&
           t.VerifyOffsetRequired(verifier, M::VT_TENSORS) && verifier.VerifyVector(model.tensors()) &&
           verifier.VerifyVectorOfTables(model.tensors()) &&
           t.VerifyOffsetRequired(verifier, M::VT_OPS) && verifier.VerifyVector(model.ops()) &&
           verify_ops(verifier, model) &&
           t.VerifyOffsetRequired(verifier, M::VT_INPUTS) && verifier.VerifyVector(model.inputs()) &&
           t.VerifyOffsetRequired(verifier, M::VT_OUTPUTS) && verifier.VerifyVector(model.outputs()) &&
           t.VerifyOffsetRequired(verifier, M::VT_PLAN) && verifier.VerifyTable(model.plan()) &&
           t.VerifyOffset(verifier, M::VT_METADATA) && verifier.VerifyTable(model.metadata()) &&
           t.VerifyOffset(verifier, M::VT_TOKENIZER) && verifier.VerifyTable(model.tokenizer()) &&
           t.VerifyOffset(verifier, M::VT_SELF_TESTS) && verifier.VerifyVector(model.self_tests()) &&
           verifier.VerifyVectorOfTables(model.self_tests()) &&
           t.VerifyOffset(verifier, M::VT_STAGES) && verifier.VerifyVector(model.stages()) &&
           verifier.VerifyVectorOfTables(model.stages()) &&
           t.VerifyOffset(verifier, M::VT_TARGET_TOKENIZER) &&
           verifier.VerifyTable(model.target_tokenizer()) && verifier.EndTable();
  }
};

Status check_checksum(const fb::Model& root, const uint8_t* bytes, size_t size) {
  if (root.checksum() == nullptr) {
    return Status::error(StatusCode::kInvalidModel, "the file carries no checksum");
  }
  const size_t at = static_cast<size_t>(reinterpret_cast<const uint8_t*>(root.checksum()) - bytes);
  const uint32_t actual = crc32_skipping(bytes, size, at);
  if (actual != root.checksum()->crc32()) {
    return Status::error(StatusCode::kInvalidModel,
                         "checksum mismatch: file says %08x, contents give %08x (corrupt or "
                         "truncated file)",
                         static_cast<unsigned>(root.checksum()->crc32()),
                         static_cast<unsigned>(actual));
  }
  return Status();
}

}  // namespace

// Each options table's generated Verify (ops/options_verifier.h), beside the model's own
// tables so that the compiler shares their field checks.
#define FOCAL_DEFINE_OPTIONS_VERIFIER(Name, def, spec_kind)                                   \
  bool verify_options(flatbuffers::Verifier& verifier, const fb::Name##Options* options) { \
    return options->Verify(verifier);                                                        \
  }
FOCAL_FOR_EACH_OP(FOCAL_DEFINE_OPTIONS_VERIFIER)
#undef FOCAL_DEFINE_OPTIONS_VERIFIER

Result<Model> Model::from_bytes(const void* data, size_t size, const LoadOptions& options) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  uint64_t prefixed_size = 0;
  FOCAL_RETURN_IF_ERROR(check_envelope(bytes, size, &prefixed_size));

  // VerifySizePrefixedBuffer's checks from the root offset on: the size prefix and the
  // file identifier are check_envelope's.
  flatbuffers::Verifier verifier(bytes, static_cast<size_t>(prefixed_size));
  if (!verifier.VerifyBufferFromStart<ModelStructure>(nullptr, kPrefixBytes)) {
    return Status::error(StatusCode::kInvalidModel,
                         "model structure failed FlatBuffers verification (corrupt file)");
  }
  const fb::Model* root = fb::GetSizePrefixedModel(bytes);
  if (root->version() != kFormatVersion) {
    return Status::error(
        StatusCode::kUnsupported, "model format version %u, this engine reads version %u%s",
        static_cast<unsigned>(root->version()), static_cast<unsigned>(kFormatVersion),
        root->version() > kFormatVersion ? ": upgrade focal" : "");
  }
  if (options.verify_checksum) FOCAL_RETURN_IF_ERROR(check_checksum(*root, bytes, size));
  FOCAL_RETURN_IF_ERROR(
      verify_model_meaning(*root, bytes, size, data_segment_offset(prefixed_size)));
  return Model(bytes, size, root);
}

const uint8_t* Model::data_segment() const {
  const uint64_t prefixed = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(bytes_) + kPrefixBytes;
  return bytes_ + data_segment_offset(prefixed);
}

uint32_t Model::version() const { return root_->version(); }

int Model::stage_count() const {
  return root_->stages() != nullptr ? static_cast<int>(root_->stages()->size()) : 0;
}

StageInfo Model::stage(int index) const {
  StageInfo info;
  if (index < 0 || index >= stage_count()) return info;
  const fb::Stage& s = *root_->stages()->Get(static_cast<uint32_t>(index));
  info.name = s.name()->c_str();
  info.first_op = s.first_op();
  info.op_count = s.op_count();
  return info;
}
int Model::tensor_count() const { return static_cast<int>(root_->tensors()->size()); }
int Model::op_count() const { return static_cast<int>(root_->ops()->size()); }
int Model::input_count() const { return static_cast<int>(root_->inputs()->size()); }
int Model::output_count() const { return static_cast<int>(root_->outputs()->size()); }
// Index accessors answer -1 (or an empty description) out of range rather than read
// past a vector: they are public, and callers loop with counts they may get wrong.
int Model::input_tensor(int i) const {
  return i >= 0 && i < input_count() ? root_->inputs()->Get(static_cast<uint32_t>(i)) : -1;
}
int Model::output_tensor(int i) const {
  return i >= 0 && i < output_count() ? root_->outputs()->Get(static_cast<uint32_t>(i)) : -1;
}
int Model::op_input(int op_index, int i) const {
  if (op_index < 0 || op_index >= op_count()) return -1;
  const auto* inputs = root_->ops()->Get(static_cast<uint32_t>(op_index))->inputs();
  return i >= 0 && static_cast<uint32_t>(i) < inputs->size() ? inputs->Get(static_cast<uint32_t>(i)) : -1;
}
int Model::op_output(int op_index, int i) const {
  if (op_index < 0 || op_index >= op_count()) return -1;
  const auto* outputs = root_->ops()->Get(static_cast<uint32_t>(op_index))->outputs();
  return i >= 0 && static_cast<uint32_t>(i) < outputs->size() ? outputs->Get(static_cast<uint32_t>(i)) : -1;
}
int64_t Model::op_id_limit(int op_index, int i) const {
  if (op_index < 0 || op_index >= op_count() || op_input(op_index, i) < 0) return 0;
  const OpDef& def = *find_op_def(*root_, *root_->ops()->Get(static_cast<uint32_t>(op_index)));
  const int table = def.indexed_table != nullptr ? op_input(op_index, def.indexed_table(i)) : -1;
  return table >= 0 ? root_->tensors()->Get(static_cast<uint32_t>(table))->shape()->Get(0) : 0;
}
uint64_t Model::arena_bytes() const { return root_->plan()->arena_bytes(); }
int Model::self_test_count() const {
  return root_->self_tests() ? static_cast<int>(root_->self_tests()->size()) : 0;
}
int Model::symbol_count() const {
  return root_->symbols() ? static_cast<int>(root_->symbols()->size()) : 0;
}

SymbolInfo Model::symbol(int index) const {
  if (index < 0 || index >= symbol_count()) return SymbolInfo();
  const fb::Symbol* s = root_->symbols()->Get(index);
  return {s->name()->c_str(), s->max()};
}

TensorInfo Model::tensor(int index) const {
  if (index < 0 || index >= tensor_count()) return TensorInfo();
  const fb::Tensor& t = *root_->tensors()->Get(index);
  TensorInfo info;
  info.name = t.name()->c_str();
  info.dtype = to_dtype(t.dtype());
  info.role = to_role(t.role());
  info.shape = max_shape(t);
  for (int i = 0; i < info.shape.rank; ++i) {
    info.dim_symbols[i] = t.dim_symbols() ? t.dim_symbols()->Get(i) : -1;
  }
  uint64_t bytes = 0;
  tensor_max_bytes(t, &bytes);
  // A constant's bytes are what it stores (a packed or quantized weight differs from
  // its logical f32 size).
  if (t.role() == fb::TensorRole_Constant) bytes = t.data()->size();
  info.max_bytes = static_cast<size_t>(bytes);
  info.arena_offset = t.arena_offset();
  info.absent_fill = t.when_absent() == fb::WhenAbsent_Ones ? 1 : t.when_absent() == fb::WhenAbsent_Zeros ? 0 : -1;
  return info;
}

int Model::find_tensor(const char* name) const {
  if (name == nullptr) return -1;
  for (int i = 0; i < tensor_count(); ++i) {
    if (std::strcmp(root_->tensors()->Get(i)->name()->c_str(), name) == 0) return i;
  }
  return -1;
}

OpInfo Model::op(int index) const {
  if (index < 0 || index >= op_count()) return OpInfo();
  const fb::Op& op = *root_->ops()->Get(index);
  OpInfo info;
  info.name = op.name() ? op.name()->c_str() : "";
  const OpDef& def = *find_op_def(*root_, op);
  info.kind = def.kind;
  info.input_count = static_cast<int>(op.inputs()->size());
  info.output_count = static_cast<int>(op.outputs()->size());
  if (def.captured_heads != nullptr) info.attention_heads = def.captured_heads(op);
  if (def.kv_cache_capacity != nullptr) info.kv_cache_capacity = def.kv_cache_capacity(*root_, op);
  info.int8_activations = runs_int8(*root_, op);
  return info;
}

uint64_t Model::parameter_count() const {
  uint64_t count = 0;
  for (const fb::Tensor* t : *root_->tensors()) {
    if (t->role() == fb::TensorRole_Constant)
      count += static_cast<uint64_t>(max_shape(*t).element_count());
  }
  return count;
}

uint64_t Model::parameter_bytes() const {
  uint64_t total = 0;
  for (const fb::Tensor* t : *root_->tensors()) {
    if (t->role() == fb::TensorRole_Constant) total += t->data()->size();
  }
  return total;
}

const char* Model::architecture() const {
  const fb::Metadata* m = root_->metadata();
  return m && m->architecture() ? m->architecture()->c_str() : "";
}

const char* Model::producer() const {
  const fb::Metadata* m = root_->metadata();
  return m && m->producer() ? m->producer()->c_str() : "";
}

const char* Model::hyperparameter(const char* key) const {
  const fb::Metadata* m = root_->metadata();
  if (m == nullptr || m->hyperparameters() == nullptr || key == nullptr) return nullptr;
  for (const fb::KeyValue* kv : *m->hyperparameters()) {
    if (std::strcmp(kv->key()->c_str(), key) == 0) return kv->value() ? kv->value()->c_str() : "";
  }
  return nullptr;
}

int Model::hyperparameter_count() const {
  const fb::Metadata* m = root_->metadata();
  return m && m->hyperparameters() ? static_cast<int>(m->hyperparameters()->size()) : 0;
}

HyperparameterInfo Model::hyperparameter_info(int index) const {
  HyperparameterInfo info;
  if (index < 0 || index >= hyperparameter_count()) return info;
  const fb::KeyValue& kv = *root_->metadata()->hyperparameters()->Get(static_cast<uint32_t>(index));
  info.key = kv.key()->c_str();
  if (kv.value() != nullptr) info.value = kv.value()->c_str();
  return info;
}

}  // namespace focal
