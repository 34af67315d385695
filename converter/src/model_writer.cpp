#include "model_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "focal/internal/checksum.h"
#include "focal/internal/graph.h"
#include "focal/limits.h"
#include "plan/planner.h"

namespace focal {

// Where every constant and self-test value landed in the data segment.
// The bytes are copied there when the file is assembled; only offsets are decided here.
struct ModelWriter::Layout {
  std::vector<fb::BufferRef> tensor_refs;                   // per tensor (constants only used)
  std::vector<fb::BufferRef> data_refs;                     // where constants' bytes go
  std::vector<std::vector<fb::BufferRef>> test_input_refs;  // per self-test, per value
  std::vector<std::vector<fb::BufferRef>> test_output_refs;
  uint64_t data_size = 0;
};

// The serialized FlatBuffer of a finished file and where its data goes: the file is
// `bytes`, zeros up to data_offset, then the data segment, data_size bytes in all.
struct ModelWriter::Header {
  std::vector<uint8_t> bytes;
  size_t checksum_at = 0;
  size_t data_offset = 0;
  size_t file_size = 0;
  Layout layout;
};

namespace {

fb::BufferRef append_aligned(uint64_t* data_size, size_t bytes) {
  const uint64_t offset = align_up(*data_size, kBufferAlignment);
  *data_size = offset + bytes;
  return fb::BufferRef(offset, bytes);
}

flatbuffers::Offset<fb::Metadata> build_metadata(
    flatbuffers::FlatBufferBuilder& fbb, const std::string& architecture,
    const std::string& producer, const std::string& source,
    const std::vector<std::pair<std::string, std::string>>& hyperparameters) {
  std::vector<flatbuffers::Offset<fb::KeyValue>> pairs;
  for (const auto& kv : hyperparameters) {
    pairs.push_back(fb::CreateKeyValueDirect(fbb, kv.first.c_str(), kv.second.c_str()));
  }
  return fb::CreateMetadataDirect(fbb, architecture.c_str(), producer.c_str(), source.c_str(),
                                  &pairs);
}

}  // namespace

int ModelWriter::add_symbol(const std::string& name, int64_t max) {
  symbols_.emplace_back(name, max);
  return static_cast<int>(symbols_.size()) - 1;
}

int ModelWriter::add_tensor(TensorSpec spec) {
  tensors_.push_back(std::move(spec));
  return static_cast<int>(tensors_.size()) - 1;
}

int ModelWriter::add_input(const std::string& name, DType dtype, std::vector<int64_t> shape,
                           std::vector<int32_t> dim_symbols) {
  return add_tensor(
      {name, dtype, TensorRole::kInput, std::move(shape), std::move(dim_symbols), {}});
}

void ModelWriter::set_absent_fill(int tensor, int fill) { tensors_.at(static_cast<size_t>(tensor)).absent_fill = fill; }

int ModelWriter::add_output(const std::string& name, DType dtype, std::vector<int64_t> shape,
                            std::vector<int32_t> dim_symbols) {
  return add_tensor(
      {name, dtype, TensorRole::kOutput, std::move(shape), std::move(dim_symbols), {}});
}

int ModelWriter::add_activation(const std::string& name, DType dtype, std::vector<int64_t> shape,
                                std::vector<int32_t> dim_symbols) {
  return add_tensor(
      {name, dtype, TensorRole::kActivation, std::move(shape), std::move(dim_symbols), {}});
}

int ModelWriter::add_state(const std::string& name, DType dtype, std::vector<int64_t> shape,
                           std::vector<int32_t> dim_symbols) {
  return add_tensor(
      {name, dtype, TensorRole::kState, std::move(shape), std::move(dim_symbols), {}});
}

int ModelWriter::add_constant(const std::string& name, DType dtype, std::vector<int64_t> shape,
                              std::vector<uint8_t> bytes) {
  return add_tensor({name, dtype, TensorRole::kConstant, std::move(shape), {}, std::move(bytes)});
}

void ModelWriter::set_quantization(int tensor, std::vector<float> scales, std::vector<int64_t> zero_points) {
  TensorSpec& t = tensors_.at(static_cast<size_t>(tensor));
  t.row_scales = std::move(scales);
  t.zero_points = std::move(zero_points);
}

int ModelWriter::add_constant_f32(const std::string& name, std::vector<int64_t> shape,
                                  const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return add_constant(name, DType::kF32, std::move(shape), std::move(bytes));
}

void ModelWriter::begin_stage(const std::string& name) {
  stages_.emplace_back(name, static_cast<int>(ops_.size()));
}

void ModelWriter::set_metadata(const std::string& architecture, const std::string& producer,
                               const std::string& source) {
  architecture_ = architecture;
  producer_ = producer;
  source_ = source;
}

void ModelWriter::add_hyperparameter(const std::string& key, const std::string& value) {
  hyperparameters_.emplace_back(key, value);
}

void ModelWriter::add_self_test(SelfTestSpec test) { self_tests_.push_back(std::move(test)); }

void ModelWriter::make_output(int tensor) {
  if (tensor >= 0 && static_cast<size_t>(tensor) < tensors_.size() &&
      tensors_[static_cast<size_t>(tensor)].role == TensorRole::kActivation) {
    tensors_[static_cast<size_t>(tensor)].role = TensorRole::kOutput;
  }
}

int ModelWriter::find_tensor(const std::string& name) const {
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (tensors_[t].name == name) return static_cast<int>(t);
  }
  return -1;
}

ModelWriter::Layout ModelWriter::lay_out_data(const WriteOptions& options) const {
  Layout layout;
  layout.tensor_refs.resize(tensors_.size());
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TensorSpec& spec = tensors_[t];
    if (spec.role == TensorRole::kConstant) {
      layout.tensor_refs[t] =
          append_aligned(&layout.data_size, spec.moved != nullptr ? spec.moved_size : spec.bytes.size());
    }
  }
  layout.data_refs = layout.tensor_refs;
  for (const SelfTestSpec& test : self_tests_) {
    layout.test_input_refs.emplace_back();
    layout.test_output_refs.emplace_back();
    for (const auto& v : test.inputs) {
      layout.test_input_refs.back().push_back(append_aligned(&layout.data_size, v.bytes.size()));
    }
    for (const auto& v : test.expected_outputs) {
      layout.test_output_refs.back().push_back(append_aligned(&layout.data_size, v.bytes.size()));
    }
  }
  for (const auto& o : options.data_ref_overrides) layout.tensor_refs[o.first] = o.second;
  return layout;
}

std::vector<flatbuffers::Offset<fb::Tensor>> ModelWriter::serialize_tensors(
    flatbuffers::FlatBufferBuilder& fbb, const Layout& layout, const std::vector<uint64_t>& arena_offsets) const {
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TensorSpec& spec = tensors_[t];
    const bool constant = spec.role == TensorRole::kConstant;
    const auto quantization =
        spec.row_scales.empty()
            ? 0
            : fb::CreateQuantizationDirect(fbb, &spec.row_scales, /*axis=*/0,
                                           spec.zero_points.empty() ? nullptr : &spec.zero_points);
    tensors.push_back(fb::CreateTensorDirect(
        fbb, spec.name.c_str(), static_cast<fb::DType>(spec.dtype),
        static_cast<fb::TensorRole>(spec.role), &spec.shape,
        spec.dim_symbols.empty() ? nullptr : &spec.dim_symbols,
        constant ? &layout.tensor_refs[t] : nullptr, quantization, constant ? 0 : arena_offsets[t],
        spec.int8_dot         ? fb::TensorLayout_DenseInt8Dot
        : spec.int4_group > 0 ? fb::TensorLayout_DenseInt4
        : spec.dense_packed   ? fb::TensorLayout_DensePacked
                              : fb::TensorLayout_RowMajor,
        static_cast<int32_t>(spec.int4_group),
        spec.absent_fill < 0 ? fb::WhenAbsent_Required : spec.absent_fill == 1 ? fb::WhenAbsent_Ones
                                                                                : fb::WhenAbsent_Zeros));
  }
  return tensors;
}

// Each op's options table is packed from its object-API value: no case per op kind.
std::vector<flatbuffers::Offset<fb::Op>> ModelWriter::serialize_ops(flatbuffers::FlatBufferBuilder& fbb) const {
  std::vector<flatbuffers::Offset<fb::Op>> ops;
  for (const OpSpec& op : ops_) {
    const flatbuffers::Offset<void> options = op.options.Pack(fbb);
    ops.push_back(fb::CreateOpDirect(fbb, op.name.c_str(), op.options.type, options, &op.inputs, &op.outputs));
  }
  return ops;
}

std::vector<flatbuffers::Offset<fb::SelfTestCase>> ModelWriter::serialize_self_tests(
    flatbuffers::FlatBufferBuilder& fbb, const Layout& layout) const {
  const auto values = [&](const std::vector<TensorValueSpec>& specs, const std::vector<fb::BufferRef>& refs) {
    std::vector<flatbuffers::Offset<fb::TensorValue>> out;
    for (size_t v = 0; v < specs.size(); ++v) {
      out.push_back(fb::CreateTensorValueDirect(fbb, specs[v].tensor, &specs[v].shape, &refs[v]));
    }
    return out;
  };
  std::vector<flatbuffers::Offset<fb::SelfTestCase>> tests;
  for (size_t i = 0; i < self_tests_.size(); ++i) {
    const auto test_inputs = values(self_tests_[i].inputs, layout.test_input_refs[i]);
    const auto test_outputs = values(self_tests_[i].expected_outputs, layout.test_output_refs[i]);
    tests.push_back(fb::CreateSelfTestCaseDirect(fbb, &test_inputs, &test_outputs, self_tests_[i].atol,
                                                 self_tests_[i].rtol));
  }
  return tests;
}

std::vector<flatbuffers::Offset<fb::Stage>> ModelWriter::serialize_stages(flatbuffers::FlatBufferBuilder& fbb) const {
  std::vector<flatbuffers::Offset<fb::Stage>> stages;
  for (size_t s = 0; s < stages_.size(); ++s) {
    const int end = s + 1 < stages_.size() ? stages_[s + 1].second : static_cast<int>(ops_.size());
    stages.push_back(fb::CreateStageDirect(fbb, stages_[s].first.c_str(), stages_[s].second,
                                           end - stages_[s].second));
  }
  return stages;
}

// The FlatBuffer; the order of the tables in it is the file format's bytes, so it stays
// symbols, tensors, ops, self-tests, plan, metadata, stages, tokenizers.
std::vector<uint8_t> ModelWriter::serialize(const Layout& layout, const std::vector<uint64_t>& arena_offsets,
                                            uint64_t arena_bytes, uint32_t version) const {
  flatbuffers::FlatBufferBuilder fbb(4096);
  std::vector<flatbuffers::Offset<fb::Symbol>> symbols;
  for (const auto& s : symbols_) symbols.push_back(fb::CreateSymbolDirect(fbb, s.first.c_str(), s.second));
  const auto tensors = serialize_tensors(fbb, layout, arena_offsets);
  const auto ops = serialize_ops(fbb);
  std::vector<int32_t> inputs, outputs;
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (tensors_[t].role == TensorRole::kInput) inputs.push_back(static_cast<int32_t>(t));
    if (tensors_[t].role == TensorRole::kOutput) outputs.push_back(static_cast<int32_t>(t));
  }
  const auto tests = serialize_self_tests(fbb, layout);
  const fb::Checksum checksum(0);  // stamped after the whole file is assembled
  const auto plan = fb::CreateMemoryPlan(fbb, arena_bytes, static_cast<uint32_t>(kBufferAlignment));
  const auto metadata = build_metadata(fbb, architecture_, producer_, source_, hyperparameters_);
  const auto stages = serialize_stages(fbb);
  // Checked by finish() before serializing, so these cannot fail here.
  const auto tokenizer = tokenizer_.kind != fb::TokenizerKind_None ? build_tokenizer(fbb, tokenizer_).value()
                                                                    : flatbuffers::Offset<fb::Tokenizer>();
  const auto target_tokenizer = target_tokenizer_.kind != fb::TokenizerKind_None
                                    ? build_tokenizer(fbb, target_tokenizer_).value()
                                    : flatbuffers::Offset<fb::Tokenizer>();
  const auto root = fb::CreateModelDirect(fbb, version, &checksum, &symbols, &tensors, &ops, &inputs, &outputs, plan,
                                          metadata, tokenizer, &tests, stages_.empty() ? nullptr : &stages,
                                          target_tokenizer);
  fb::FinishSizePrefixedModelBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

bool ModelWriter::operands_in_range() const {
  for (const OpSpec& op : ops_) {
    for (int32_t t : op.inputs)  // -1: an absent optional operand, judged by the loader
      if (t < -1 || (t >= 0 && static_cast<size_t>(t) >= tensors_.size())) return false;
    for (int32_t t : op.outputs)
      if (t < 0 || static_cast<size_t>(t) >= tensors_.size()) return false;
  }
  return true;
}

namespace {

// The decoder side's ids inputs, which the target tokenizer writes (seq2seq models).
bool decoder_ids(const std::string& name) { return name == "prev_ids" || name == "decoder_input_ids"; }

}  // namespace

// Every id a tokenizer writes must index the token table its ids input feeds: a
// tokenizer larger than the embedding converted, then failed at the first generation.
// The target tokenizer feeds the decoder's ids input where both are stored (T5's one
// tokenizer feeds both sides).
Status ModelWriter::check_tokenizer_fits(const OpSpec& op) const {
  if (op.options.type != fb::OpOptions_EmbeddingOptions || op.inputs.size() < 2 || op.inputs[0] < 0 ||
      op.inputs[1] < 0) {
    return Status();
  }
  const TensorSpec& ids = tensors_[static_cast<size_t>(op.inputs[0])];
  const TensorSpec& table = tensors_[static_cast<size_t>(op.inputs[1])];
  if (ids.role != TensorRole::kInput || table.shape.empty()) return Status();
  const bool target = decoder_ids(ids.name) && target_tokenizer_.kind != fb::TokenizerKind_None;
  const TokenizerSpec& spec = target ? target_tokenizer_ : tokenizer_;
  if (spec.kind == fb::TokenizerKind_None || int64_t(spec.vocab.size()) <= table.shape[0]) return Status();
  return Status::error(StatusCode::kInvalidArgument,
                       "the %stokenizer has %zu tokens but '%s' feeds token table '%s' of %lld rows: its ids "
                       "past %lld would index no row (a tokenizer of another model?)",
                       target ? "target " : "", spec.vocab.size(), ids.name.c_str(), table.name.c_str(),
                       static_cast<long long>(table.shape[0]), static_cast<long long>(table.shape[0] - 1));
}

Status ModelWriter::check_tokenizers() const {
  for (const TokenizerSpec* spec : {&tokenizer_, &target_tokenizer_}) {
    if (spec->kind == fb::TokenizerKind_None) continue;
    flatbuffers::FlatBufferBuilder probe;
    const auto built = build_tokenizer(probe, *spec);
    if (!built.ok()) return built.status();
  }
  for (const OpSpec& op : ops_) FOCAL_RETURN_IF_ERROR(check_tokenizer_fits(op));
  return Status();
}

// Plans on a first serialization, so lifetimes come from the engine's own reading of the
// graph. A graph with dangling operands has no lifetimes: every tensor then gets bytes
// of its own, and the loader will name the dangling operand. Returns the arena size.
uint64_t ModelWriter::plan_offsets(const Layout& layout, uint32_t version, std::vector<uint64_t>* offsets) const {
  offsets->assign(tensors_.size(), 0);
  const std::vector<uint8_t> draft = serialize(layout, *offsets, 0, version);
  const fb::Model& model = *fb::GetSizePrefixedModel(draft.data());
  const int32_t op_count = static_cast<int32_t>(ops_.size());
  std::vector<Lifetime> lifetimes(tensors_.size(), Lifetime{-1, op_count});
  if (operands_in_range()) compute_lifetimes(model, lifetimes.data());
  std::vector<PlanItem> items(tensors_.size());
  for (size_t t = 0; t < tensors_.size(); ++t) {
    uint64_t bytes = 0;
    const bool planned = tensors_[t].role != TensorRole::kConstant &&
                         tensor_max_bytes(*model.tensors()->Get(static_cast<uint32_t>(t)), &bytes);
    items[t] = {planned ? bytes : 0, lifetimes[t]};
  }
  std::vector<int32_t> order(tensors_.size());
  return plan_arena(items.data(), static_cast<int32_t>(items.size()), kBufferAlignment, offsets->data(),
                    order.data());
}

Result<ModelWriter::Header> ModelWriter::serialize_header(const WriteOptions& options) const {
  if (!error_.ok()) return error_;
  // The engine's load limits, checked before planning: the planner's work grows with the
  // square of the tensor count, so a spec that expands to more would only stall here.
  if (ops_.size() > kMaxOps || tensors_.size() > kMaxTensors) {
    return Status::error(StatusCode::kResourceExhausted,
                         "the model has %llu ops and %llu tensors; the engine loads at most %u and %u",
                         static_cast<unsigned long long>(ops_.size()), static_cast<unsigned long long>(tensors_.size()),
                         static_cast<unsigned>(kMaxOps), static_cast<unsigned>(kMaxTensors));
  }
  FOCAL_RETURN_IF_ERROR(check_tokenizers());
  Header header;
  header.layout = lay_out_data(options);
  const Layout& layout = header.layout;
  std::vector<uint64_t> offsets;
  const uint64_t arena_bytes = plan_offsets(layout, options.version, &offsets);
  for (const auto& o : options.arena_offset_overrides) offsets[o.first] = o.second;
  header.bytes = serialize(layout, offsets, options.arena_bytes_override != 0 ? options.arena_bytes_override : arena_bytes,
                           options.version);
  header.checksum_at = static_cast<size_t>(
      reinterpret_cast<const uint8_t*>(fb::GetSizePrefixedModel(header.bytes.data())->checksum()) -
      header.bytes.data());
  header.data_offset = static_cast<size_t>(data_segment_offset(header.bytes.size()));
  if (layout.data_size > std::numeric_limits<size_t>::max() - header.data_offset) {  // 32-bit hosts
    return Status::error(StatusCode::kResourceExhausted, "the model's %llu data bytes do not fit this machine's memory",
                         static_cast<unsigned long long>(layout.data_size));
  }
  header.file_size = header.data_offset + static_cast<size_t>(layout.data_size);
  return header;
}

void ModelWriter::write_test_values(const Header& header, uint8_t* file) const {
  uint8_t* data = file + header.data_offset;
  for (size_t i = 0; i < self_tests_.size(); ++i) {
    const auto copy = [&](const std::vector<TensorValueSpec>& values, const std::vector<fb::BufferRef>& refs) {
      for (size_t v = 0; v < values.size(); ++v) {
        if (!values[v].bytes.empty()) std::memcpy(data + refs[v].offset(), values[v].bytes.data(), values[v].bytes.size());
      }
    };
    copy(self_tests_[i].inputs, header.layout.test_input_refs[i]);
    copy(self_tests_[i].expected_outputs, header.layout.test_output_refs[i]);
  }
}

namespace {

void stamp_checksum(uint8_t* file, size_t size, size_t checksum_at) {
  const uint32_t crc = crc32_skipping(file, size, checksum_at);
  std::memcpy(file + checksum_at, &crc, sizeof(crc));  // little-endian, as FlatBuffers
}

}  // namespace

Result<std::vector<uint8_t>> ModelWriter::finish(const WriteOptions& options) const {
  Result<Header> header = serialize_header(options);
  if (!header.ok()) return header.status();
  std::vector<uint8_t> file(header->file_size, 0);
  std::memcpy(file.data(), header->bytes.data(), header->bytes.size());
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TensorSpec& spec = tensors_[t];
    if (spec.role != TensorRole::kConstant) continue;
    const uint8_t* bytes = spec.moved != nullptr ? spec.moved : spec.bytes.data();
    const size_t size = spec.moved != nullptr ? spec.moved_size : spec.bytes.size();
    if (size > 0) std::memcpy(file.data() + header->data_offset + header->layout.data_refs[t].offset(), bytes, size);
  }
  write_test_values(header.value(), file.data());
  stamp_checksum(file.data(), file.size(), header->checksum_at);
  return file;
}

// Constant `t`'s bytes to `at`: from `previous` (releasing its pages), from where they
// moved before, or from the writer's own copy, which is freed. Returns the bytes freed.
size_t ModelWriter::move_constant(size_t t, uint8_t* at, FileBuffer* previous) {
  TensorSpec& spec = tensors_[t];
  size_t freed = 0;
  if (spec.moved != nullptr && previous != nullptr && previous->contains(spec.moved)) {
    copy_releasing(*previous, static_cast<size_t>(spec.moved - previous->data()), spec.moved_size, at);
  } else if (spec.moved != nullptr) {
    std::memcpy(at, spec.moved, spec.moved_size);
  } else {
    if (!spec.bytes.empty()) std::memcpy(at, spec.bytes.data(), spec.bytes.size());
    spec.moved_size = spec.bytes.size();
    std::vector<uint8_t>().swap(spec.bytes);  // frees the writer's copy now
    freed = spec.moved_size;
  }
  spec.moved = at;
  return freed;
}

Result<std::vector<uint8_t>> ModelWriter::header(size_t* file_size) const {
  Result<Header> header = serialize_header(WriteOptions());
  if (!header.ok()) return header.status();
  *file_size = header->file_size;
  return std::move(header->bytes);
}

Result<FileBuffer> ModelWriter::finish_moving_constants(FileBuffer* previous) {
  Result<Header> header = serialize_header(WriteOptions());
  if (!header.ok()) return header.status();
  Result<FileBuffer> file = FileBuffer::allocate(header->file_size);
  if (!file.ok()) return file.status();
  uint8_t* const out = file->data();
  std::memcpy(out, header->bytes.data(), header->bytes.size());
  constexpr size_t kTrimEvery = size_t(32) << 20;  // bytes freed between handing memory back
  size_t freed = 0;
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (tensors_[t].role != TensorRole::kConstant) continue;
    freed += move_constant(t, out + header->data_offset + header->layout.data_refs[t].offset(), previous);
    if (freed >= kTrimEvery) {
      return_freed_memory();
      freed = 0;
    }
  }
  write_test_values(header.value(), out);
  stamp_checksum(out, file->size(), header->checksum_at);
  return_freed_memory();
  return file;
}

}  // namespace focal
