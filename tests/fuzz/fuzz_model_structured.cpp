// libFuzzer, structure-aware: each input is a .focal file. The custom mutator rebuilds
// its FlatBuffer with a few fields changed through the schema's reflection data (any
// tensor field, vector, the plan, op options of every union member, stages, symbols,
// self-test vectors, tokenizer tables, metadata: flatbuffer_mutator.h), or changes
// values inside the data segment's buffers, or bytes of the FlatBuffer itself; then it
// re-stamps the CRC, so the loader's checks behind the checksum are what is tested.
// A file that loads runs like an application would run it: a session over an arena of
// the size the engine asks for, inputs set, every stage and a whole run, the outputs
// read, the stored self-test, and the tokenizers, all of which must fail cleanly or work.
#include <sanitizer/asan_interface.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "flatbuffer_mutator.h"
#include "focal/focal.h"
#include "focal_bfbs_generated.h"
#include "focal_file.h"
#include "focal_generated.h"
#include "support/aligned_buffer.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using focal::fuzz::Random;

constexpr size_t kMaxArenaBytes = size_t(64) << 20;  // larger plans are skipped, not run
constexpr size_t kMaxInputBytes = size_t(4) << 20;   // per input tensor

// ---- Mutations ------------------------------------------------------------------

// The bytes in 8-byte aligned storage, so FlatBuffers reads scalars in place.
std::vector<uint8_t> aligned_copy(const uint8_t* data, size_t size) {
  return std::vector<uint8_t>(data, data + size);
}

std::vector<uint8_t> mutate_structure(const std::vector<uint8_t>& file, Random& random) {
  static focal::fuzz::FlatBufferMutator mutator(
      *flatbuffers::GetRoot<reflection::Schema>(focal::fb::ModelBinarySchema::data()));
  focal::fuzz::FocalFileParts parts;
  if (!split_focal_file(file.data(), file.size(), &parts)) return {};
  const auto* root = flatbuffers::GetSizePrefixedRoot<flatbuffers::Table>(file.data());
  // Mostly one change, so most children still load; sometimes several, for checks that
  // only a combination of fields reaches.
  const int mutations = random.one_in(2) ? 1 : 2 + static_cast<int>(random.below(4));
  const std::vector<uint8_t> rebuilt = mutator.mutate(*root, mutations, random);
  const size_t prefix = sizeof(flatbuffers::uoffset_t);
  return focal::fuzz::assemble_focal_file(rebuilt.data() + prefix, rebuilt.size() - prefix,
                                          parts.data_segment, parts.data_bytes);
}

// Where constants and self-test values live in the data segment (offset, size).
std::vector<std::pair<uint64_t, uint64_t>> buffer_refs(const focal::fb::Model& model) {
  std::vector<std::pair<uint64_t, uint64_t>> refs;
  for (const focal::fb::Tensor* t : *model.tensors()) {
    if (t->data() != nullptr) refs.emplace_back(t->data()->offset(), t->data()->size());
  }
  if (model.self_tests() == nullptr) return refs;
  for (const focal::fb::SelfTestCase* c : *model.self_tests()) {
    for (const auto* values : {c->inputs(), c->expected_outputs()}) {
      if (values == nullptr) continue;
      for (const focal::fb::TensorValue* v : *values) {
        if (v->data() != nullptr) refs.emplace_back(v->data()->offset(), v->data()->size());
      }
    }
  }
  return refs;
}

// A few 4-byte values inside one buffer become interesting integers or floats: token
// ids out of their table, masks that are not 1s then 0s, NaN and Inf in weights,
// expected outputs or scales.
std::vector<uint8_t> mutate_data_segment(std::vector<uint8_t> file, Random& random) {
  focal::fuzz::FocalFileParts parts;
  if (!split_focal_file(file.data(), file.size(), &parts) || parts.data_bytes == 0) return {};
  const auto refs = buffer_refs(*focal::fb::GetSizePrefixedModel(file.data()));
  if (refs.empty()) return {};
  const auto ref = refs[random.below(refs.size())];
  const size_t segment = static_cast<size_t>(parts.data_segment - file.data());
  if (ref.first >= parts.data_bytes || ref.second < 4 || ref.second > parts.data_bytes - ref.first)
    return {};
  for (size_t n = 1 + random.below(4); n > 0; --n) {
    const size_t at = segment + static_cast<size_t>(ref.first) +
                      random.below(static_cast<size_t>(ref.second / 4)) * 4;
    const uint32_t value = random.one_in(2)
                               ? static_cast<uint32_t>(focal::fuzz::interesting_integer(random))
                               : focal::fuzz::float_bits(focal::fuzz::interesting_float(random));
    std::memcpy(file.data() + at, &value, sizeof(value));
  }
  return file;
}

// libFuzzer's own byte mutations on the FlatBuffer (offsets, vtables, lengths), the data
// segment kept and re-aligned behind it.
std::vector<uint8_t> mutate_flatbuffer_bytes(const std::vector<uint8_t>& file, size_t max_size) {
  focal::fuzz::FocalFileParts parts;
  if (!split_focal_file(file.data(), file.size(), &parts)) {
    std::vector<uint8_t> raw(file);
    raw.resize(max_size);
    raw.resize(LLVMFuzzerMutate(raw.data(), file.size(), max_size));
    return raw;
  }
  std::vector<uint8_t> flatbuffer(parts.flatbuffer, parts.flatbuffer + parts.flatbuffer_bytes);
  const size_t room = parts.flatbuffer_bytes + 256;
  flatbuffer.resize(room);
  flatbuffer.resize(LLVMFuzzerMutate(flatbuffer.data(), parts.flatbuffer_bytes, room));
  return focal::fuzz::assemble_focal_file(flatbuffer.data(), flatbuffer.size(), parts.data_segment,
                                          parts.data_bytes);
}

// ---- Running what loads ---------------------------------------------------------

// Inputs at their planned shape, or with every symbolic dim at 1 (a decode step).
// Token ids and masks are 1 (valid for any table and mask); floats a fixed ramp.
void set_inputs(const focal::Model& model, focal::Session& session, bool symbols_at_one) {
  static const std::vector<uint8_t> values = [] {
    std::vector<uint8_t> v(kMaxInputBytes);
    for (size_t i = 0; i + 4 <= v.size(); i += 4) {
      const float f = static_cast<float>(i % 97) / 48.0f - 1.0f;
      std::memcpy(v.data() + i, &f, 4);
    }
    return v;
  }();
  static const std::vector<int32_t> ones(kMaxInputBytes / 4, 1);
  for (int i = 0; i < model.input_count(); ++i) {
    const focal::TensorInfo t = model.tensor(model.input_tensor(i));
    focal::Shape shape = t.shape;
    for (int d = 0; d < shape.rank; ++d) {
      if (symbols_at_one && t.dim_symbols[d] >= 0) shape.dims[d] = 1;
    }
    const size_t bytes = static_cast<size_t>(shape.element_count()) * focal::dtype_size(t.dtype);
    if (t.max_bytes > kMaxInputBytes || bytes > kMaxInputBytes) continue;
    const void* data =
        t.dtype == focal::DType::kI32 ? static_cast<const void*>(ones.data()) : values.data();
    (void)session.set_input(i, shape, data, bytes);
  }
}

// Every byte of every output, so a view that points outside the arena is an ASan report.
void read_outputs(const focal::Model& model, const focal::Session& session) {
  unsigned sum = 0;
  for (int i = 0; i < model.output_count(); ++i) {
    const focal::TensorView view = session.output(i);
    if (view.data == nullptr) continue;
    const size_t bytes =
        static_cast<size_t>(view.shape.element_count()) * focal::dtype_size(view.dtype);
    const auto* p = static_cast<const uint8_t*>(view.data);
    for (size_t b = 0; b < bytes; ++b) sum += p[b];
  }
  volatile unsigned sink = sum;
  (void)sink;
}

// Exactly the bytes asked for: the allocation rounds up to the 64-byte alignment, and
// that tail is poisoned, so a write one byte past the arena is an ASan report.
class ExactArena {
 public:
  explicit ExactArena(size_t bytes)
      : allocated_((bytes + 63) / 64 * 64 + 64),
        data_(static_cast<uint8_t*>(std::aligned_alloc(64, allocated_))) {
    ASAN_POISON_MEMORY_REGION(data_ + bytes, allocated_ - bytes);
  }
  ExactArena(const ExactArena&) = delete;
  ExactArena& operator=(const ExactArena&) = delete;
  ~ExactArena() {
    ASAN_UNPOISON_MEMORY_REGION(data_, allocated_);
    std::free(data_);
  }
  uint8_t* data() { return data_; }

 private:
  size_t allocated_;
  uint8_t* data_;
};

// The engine's promise behind required_arena_bytes: the arena it asks for holds the
// file's whole plan (the op workspace comes after it) and every planned tensor. A file
// that breaks it has ops write past the caller's buffer or into their own workspace.
void check_plan_fits(const focal::Model& model, size_t arena_bytes) {
  if (arena_bytes < model.arena_bytes()) {
    std::fprintf(stderr, "required_arena_bytes is %zu, less than the plan's arena_bytes %llu\n",
                 arena_bytes, static_cast<unsigned long long>(model.arena_bytes()));
    std::abort();
  }
  for (int i = 0; i < model.tensor_count(); ++i) {
    const focal::TensorInfo t = model.tensor(i);
    if (t.role == focal::TensorRole::kConstant) continue;
    if (t.arena_offset > arena_bytes || t.max_bytes > arena_bytes - t.arena_offset) {
      std::fprintf(
          stderr,
          "tensor %d '%s' at arena offset %llu (+%zu bytes) lies outside the %zu-byte arena "
          "required_arena_bytes asks for (plan arena_bytes %llu)\n",
          i, t.name, static_cast<unsigned long long>(t.arena_offset), t.max_bytes, arena_bytes,
          static_cast<unsigned long long>(model.arena_bytes()));
      std::abort();
    }
  }
}

void run_session(const focal::Model& model) {
  const focal::SessionOptions options;
  const auto need = focal::Session::required_arena_bytes(model, options);
  if (!need.ok()) return;
  check_plan_fits(model, need.value());
  if (need.value() > kMaxArenaBytes) return;
  ExactArena arena(need.value());
  auto session = focal::Session::create(model, options, arena.data(), need.value());
  if (!session.ok()) return;
  for (int s = 0; s < session->stage_count(); ++s) {
    set_inputs(model, *session, false);
    (void)session->run_stage(s);
  }
  read_outputs(model, *session);
  session->reset_state();
  set_inputs(model, *session, true);
  (void)session->run();
  read_outputs(model, *session);
  (void)focal::run_self_tests(*session);
}

void use_tokenizers(const focal::Model& model) {
  static const char kText[] = "In the beginning, 3 March 1987: caf\xc3\xa9 \xff!";
  static std::vector<uint64_t> scratch(focal::Tokenizer::encode_scratch_bytes(sizeof(kText)) / 8 +
                                       1);
  for (const bool target : {false, true}) {
    const auto tokenizer = focal::Tokenizer::from_model(model, target);
    if (!tokenizer.ok()) continue;
    int32_t ids[sizeof(kText) * 2];
    const auto n = tokenizer->encode(kText, sizeof(kText) - 1, ids, sizeof(ids) / sizeof(ids[0]),
                                     scratch.data(), scratch.size() * 8);
    char piece[64];
    for (size_t i = 0; n.ok() && i < n.value(); ++i)
      (void)tokenizer->decode_token(ids[i], piece, sizeof(piece));
    for (const int32_t id : {-1, 0, 1, 255, 256, 65535, 2147483647})
      (void)tokenizer->decode_token(id, piece, sizeof(piece));
  }
}

// The read-only accessors `focal inspect` uses, over every index.
void describe(const focal::Model& model) {
  size_t chars = std::strlen(model.architecture()) + std::strlen(model.producer());
  for (int i = 0; i < model.tensor_count(); ++i) chars += std::strlen(model.tensor(i).name);
  for (int i = 0; i < model.op_count(); ++i)
    chars += std::strlen(model.op(i).kind) + std::strlen(model.op(i).name);
  for (int i = 0; i < model.stage_count(); ++i) chars += std::strlen(model.stage(i).name);
  for (int i = 0; i < model.symbol_count(); ++i) chars += std::strlen(model.symbol(i).name);
  volatile size_t sink = chars + model.parameter_count() + model.parameter_bytes();
  (void)sink;
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Random random(seed);
  const std::vector<uint8_t> file = aligned_copy(data, size);
  std::vector<uint8_t> mutated;
  const size_t choice = random.below(10);
  if (choice < 7) {
    mutated = mutate_structure(file, random);
  } else if (choice < 9) {
    mutated = mutate_data_segment(file, random);
  }
  if (mutated.empty() || mutated.size() > max_size)
    mutated = mutate_flatbuffer_bytes(file, max_size);
  if (mutated.size() > max_size) return size;  // nothing that fits: the input unchanged
  (void)focal::fuzz::restamp_checksum(mutated);
  std::memcpy(data, mutated.data(), mutated.size());
  return mutated.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  focal::testing::AlignedBuffer bytes(std::vector<uint8_t>(data, data + size));
  const auto model = focal::Model::from_bytes(bytes.data(), size);  // the CRC is checked
  if (!model.ok()) return 0;
  // The loader's own FlatBuffers verifier (engine/src/load/model.cpp, which
  // verifies each op's options through its form) refuses all the schema's generated one does.
  focal::fuzz::FocalFileParts parts;
  if (!focal::fuzz::split_focal_file(bytes.data(), size, &parts)) {
    std::fprintf(stderr, "the loader accepted a file the generated FlatBuffers verifier refuses\n");
    std::abort();
  }
  describe(*model);
  use_tokenizers(*model);
  run_session(*model);
  return 0;
}
