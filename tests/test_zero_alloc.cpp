// After a session is created, set_input/run/output allocate nothing, through the C++ API
// and the C API (focal/c_api.h). This executable
// replaces malloc and operator new for the whole process and counts every call.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstdio>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "focal/c_api.h"
#include "focal/focal.h"
#include "support/aligned_buffer.h"
#include "support/tiny_decoder.h"
#include "support/tiny_model.h"

// glibc's own allocator entry points, which the replacements forward to.
extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t count, size_t size);
extern "C" void* __libc_realloc(void* pointer, size_t size);
extern "C" void* __libc_memalign(size_t alignment, size_t size);
extern "C" void __libc_free(void* pointer);

namespace {
std::atomic<long> g_allocations{0};
}

extern "C" void* malloc(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
extern "C" void* calloc(size_t count, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
extern "C" void* realloc(void* pointer, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(pointer, size);
}
extern "C" void* aligned_alloc(size_t alignment, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
// Through glibc's entry points by their internal names, so the compiler does not pair
// them with its built-in idea of malloc/free and warn about mismatches.
void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = __libc_malloc(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t) noexcept { __libc_free(p); }

using namespace focal;

TEST_CASE("the counter sees allocations") {
  const long before = g_allocations.load();
  void* volatile p = std::malloc(16);
  std::free(p);
  int* volatile q = new int(3);
  delete q;
  CHECK(g_allocations.load() - before == 2);
}

namespace {

void check_tiny_model_allocates_nothing(const testing::TinyConfig& config) {
  testing::AlignedBuffer file(testing::build_tiny_model(config));
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  testing::AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  const std::vector<float> x = testing::random_values(2 * 8 * 8, 3);
  Shape shape;
  shape.rank = 3;
  shape.dims[2] = 8;

  const long before = g_allocations.load();
  float checksum = 0.0f;
  for (int i = 0; i < 200; ++i) {
    shape.dims[0] = 1 + i % 2;
    shape.dims[1] = 1 + i % 8;
    const size_t bytes = size_t(shape.element_count()) * sizeof(float);
    if (!session->set_input(0, shape, x.data(), bytes).ok() || !session->run().ok()) break;
    checksum += session->output(1).as<float>()[0];
  }
  const auto report = run_self_tests(session.value());
  const long during = g_allocations.load() - before;
  CHECK(during == 0);
  CHECK(report.ok());
  CHECK(checksum > 0.0f);  // the runs happened: probabilities are positive
}

}  // namespace

TEST_CASE("set_input, run, output and self-tests allocate nothing after session creation") {
  check_tiny_model_allocates_nothing(testing::TinyConfig());
}

TEST_CASE("int8 activations allocate nothing either: the quantized rows live in the op's workspace") {
  testing::TinyConfig config;
  config.weight_type = DType::kI8;
  config.int8_activations = true;
  check_tiny_model_allocates_nothing(config);
}

namespace {

// A model of focal convert --quantize static, from the file ctest's conversion test wrote
// (named by `variable`), run 100 times on ragged rows of up to `steps` ids below `vocab`.
void check_static_model_allocates_nothing(const char* variable, int64_t steps, int32_t vocab) {
  const char* path = std::getenv(variable);
  if (path == nullptr) {
    MESSAGE(variable << " is not set (a build without the converter): skipped");
    return;
  }
  std::vector<uint8_t> bytes;
  if (std::FILE* f = std::fopen(path, "rb")) {
    uint8_t chunk[4096];
    size_t got = 0;
    while ((got = std::fread(chunk, 1, sizeof(chunk), f)) > 0) bytes.insert(bytes.end(), chunk, chunk + got);
    std::fclose(f);
  }
  REQUIRE(!bytes.empty());
  testing::AlignedBuffer file(bytes);
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  testing::AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  const int ids_input = session->find_input("input_ids"), mask_input = session->find_input("attention_mask");
  REQUIRE(ids_input >= 0);
  REQUIRE(mask_input >= 0);
  std::vector<int32_t> ids(static_cast<size_t>(steps)), mask(static_cast<size_t>(steps));
  for (size_t t = 0; t < ids.size(); ++t) ids[t] = int32_t(1 + (t * 37) % size_t(vocab - 1));

  const long before = g_allocations.load();
  int runs = 0;
  for (int i = 0; i < 100; ++i) {  // ragged: 1 to `steps` ids, the rest of the row padding
    const int64_t valid = 1 + (i * 13) % steps;
    for (int64_t t = 0; t < steps; ++t) mask[size_t(t)] = t < valid ? 1 : 0;
    const Shape shape{2, {1, steps}};
    const size_t row_bytes = size_t(steps) * sizeof(int32_t);
    if (!session->set_input(ids_input, shape, ids.data(), row_bytes).ok() ||
        !session->set_input(mask_input, shape, mask.data(), row_bytes).ok() || !session->run().ok()) {
      break;
    }
    ++runs;
  }
  const auto report = run_self_tests(session.value());
  const long during = g_allocations.load() - before;
  CHECK(runs == 100);
  CHECK(during == 0);
  CHECK(report.ok());
}

}  // namespace

TEST_CASE("static int8 activations allocate nothing: the classifier of focal convert --quantize static") {
  // Written by ctest's cli_static_int8 (the Cortex-M classifier's reference case: int8
  // embedding, BiLSTM 2 x 64, attention pooling, 4 classes, up to 64 steps).
  check_static_model_allocates_nothing("FOCAL_STATIC_INT8_MODEL", 64, 1000);
}

TEST_CASE("static int8 activations allocate nothing: the encoder of focal convert --quantize static") {
  // Written by ctest's cli_static_int8_encoder (the Cortex-M encoder's reference case: 3
  // pre-LN layers, d_model 48, 6 heads, up to 16 tokens of a 120-token vocabulary).
  check_static_model_allocates_nothing("FOCAL_STATIC_INT8_ENCODER_MODEL", 16, 120);
}

TEST_CASE("int4 weights allocate nothing either: rows and group sums live in the op's workspace") {
  testing::TinyConfig config;
  config.weight_type = DType::kI4;
  check_tiny_model_allocates_nothing(config);
}

namespace {

// ids [1, seq] -> Embedding(table) -> Dense(the same table as its weight) -> logits: a
// tied LM head, whose gather reads rows out of the head's packed panels.
std::vector<uint8_t> tied_head_model(DType weight_type, bool int8_activations) {
  const int64_t vocab = 70, width = 16, max_seq = 8;
  ModelWriter w;
  w.set_dense_weight_type(weight_type);
  w.set_int8_activations(int8_activations);
  const int seq = w.add_symbol("seq", max_seq);
  const int ids = w.add_input("input_ids", DType::kI32, {1, max_seq}, {-1, seq});
  const int table = w.add_constant_f32("table", {vocab, width}, testing::random_values(vocab * width, 5));
  w.share_table_with_dense(table);
  const int h = w.add_activation("h", DType::kF32, {1, max_seq, width}, {-1, seq, -1});
  w.add_embedding("embed", ids, table, -1, -1, -1, h);
  const int logits = w.add_output("logits", DType::kF32, {1, max_seq, vocab}, {-1, seq, -1});
  w.add_dense("head", h, table, -1, logits);
  auto bytes = w.finish();
  REQUIRE_MESSAGE(bytes.ok(), bytes.status().message());
  return bytes.value();
}

}  // namespace

TEST_CASE("a tied LM head allocates nothing: the gather from its packed panels, then the head") {
  const std::pair<DType, bool> forms[] = {{DType::kF32, false}, {DType::kF16, false}, {DType::kI8, false},
                                          {DType::kI8, true}};
  for (const auto& [type, int8_activations] : forms) {
    CAPTURE(int(type));
    testing::AlignedBuffer file(tied_head_model(type, int8_activations));
    auto model = Model::from_bytes(file.data(), file.size());
    REQUIRE_MESSAGE(model.ok(), model.status().message());
    testing::AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
    auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
    REQUIRE(session.ok());
    const int32_t ids[8] = {0, 69, 31, 32, 5, 64, 1, 33};
    Shape shape;
    shape.rank = 2;
    shape.dims[0] = 1;
    const long before = g_allocations.load();
    bool ran = true;
    for (int i = 0; i < 50 && ran; ++i) {
      shape.dims[1] = 1 + i % 8;
      ran = session->set_input(0, shape, ids, size_t(shape.dims[1]) * sizeof(int32_t)).ok() && session->run().ok();
    }
    const long during = g_allocations.load() - before;
    CHECK(ran);
    CHECK(during == 0);
  }
}

namespace {

std::vector<uint8_t> read_golden(const char* name) {
  const std::string path = std::string(FOCAL_GOLDEN_DIR) + "/" + name + "/model.focal";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE_MESSAGE(f != nullptr, path);
  std::vector<uint8_t> bytes;
  uint8_t chunk[65536];
  for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), f)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
  std::fclose(f);
  return bytes;
}

bool count_token(int32_t, void* user) {
  ++*static_cast<int*>(user);
  return true;
}

}  // namespace

TEST_CASE("decoding allocates nothing: prefill, KV-cached steps and sampling") {
  testing::AlignedBuffer file(read_golden("gpt2_l2_d32_h4"));
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  testing::AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  const size_t vocab = size_t(model->tensor(model->output_tensor(0)).shape.dims[1]);
  std::vector<uint32_t> scratch(sampler_scratch_bytes(vocab) / 4);
  SamplingOptions sampling;
  sampling.temperature = 0.8f;
  sampling.top_k = 20;
  sampling.top_p = 0.9f;
  auto sampler = Sampler::create(sampling, vocab, scratch.data(), scratch.size() * 4);
  REQUIRE(sampler.ok());
  const int32_t prompt[] = {5, 17, 3, 99, 42};
  GenerateOptions options;
  options.max_new_tokens = 60;

  const long before = g_allocations.load();
  int produced = 0;
  for (int round = 0; round < 3; ++round) {
    if (!generate(session.value(), prompt, 5, sampler.value(), options, count_token, &produced).ok()) break;
  }
  const long during = g_allocations.load() - before;
  CHECK(produced == 180);
  CHECK(during == 0);
}

TEST_CASE("an int8 KV cache allocates nothing: prefill quantizes into the cache, steps read it") {
  testing::AlignedBuffer file(testing::tiny_decoder(DType::kI8));
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  testing::AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  std::vector<uint32_t> scratch(sampler_scratch_bytes(testing::kTinyDecoderVocab) / 4);
  auto sampler = Sampler::create(SamplingOptions(), testing::kTinyDecoderVocab, scratch.data(), scratch.size() * 4);
  REQUIRE(sampler.ok());
  const int32_t prompt[] = {5, 7};
  GenerateOptions options;
  options.max_new_tokens = testing::kTinyDecoderContext - 2;

  const long before = g_allocations.load();
  int produced = 0;
  for (int round = 0; round < 3; ++round) {
    if (!generate(session.value(), prompt, 2, sampler.value(), options, count_token, &produced).ok()) break;
  }
  const long during = g_allocations.load() - before;
  CHECK(produced == 3 * (testing::kTinyDecoderContext - 2));
  CHECK(during == 0);
}

TEST_CASE("encoder-decoder stages allocate nothing: encode once, decode step by step") {
  testing::AlignedBuffer file(read_golden("torch_transformer_postln_relu_e2_d1_d32_h4"));
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  testing::AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  Session& s = session.value();
  const int d = 32, src_len = 7;
  const std::vector<float> src = testing::random_values(2 * src_len * d, 5);
  const std::vector<float> tgt = testing::random_values(2 * d, 6);
  const int32_t mask[2 * src_len] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  Shape src_shape, mask_shape, tgt_shape;
  src_shape.rank = tgt_shape.rank = 3;
  mask_shape.rank = 2;
  src_shape.dims[0] = mask_shape.dims[0] = tgt_shape.dims[0] = 2;
  src_shape.dims[1] = mask_shape.dims[1] = src_len;
  tgt_shape.dims[1] = 1;
  src_shape.dims[2] = tgt_shape.dims[2] = d;

  const long before = g_allocations.load();
  bool ok = s.set_input(s.find_input("src"), src_shape, src.data(), src.size() * 4).ok() &&
            s.set_input(s.find_input("src_mask"), mask_shape, mask, sizeof(mask)).ok() &&
            s.run_stage(s.find_stage("encode")).ok();
  for (int step = 0; ok && step < 10; ++step) {
    ok = s.set_input(s.find_input("tgt"), tgt_shape, tgt.data(), tgt.size() * 4).ok() &&
         s.run_stage(s.find_stage("decode")).ok();
  }
  const long during = g_allocations.load() - before;
  CHECK(ok);
  CHECK(s.cached_length() == 10);
  CHECK(during == 0);
}

// The C API (focal/c_api.h) adds nothing per run: its handles, scratch and arenas are
// allocated when they are created, and every run, generation, translation, self-test,
// tokenization and failed call after that allocates nothing.

namespace {

struct CModel {
  focal_model* model = nullptr;
  focal_session* session = nullptr;
  explicit CModel(const testing::AlignedBuffer& file) {
    REQUIRE(focal_model_load_bytes(const_cast<testing::AlignedBuffer&>(file).data(), file.size(), FOCAL_LOAD_DEFAULT,
                                   &model) == FOCAL_OK);
    REQUIRE(focal_session_create(model, nullptr, &session) == FOCAL_OK);
  }
  CModel(const CModel&) = delete;
  CModel& operator=(const CModel&) = delete;
  ~CModel() {
    focal_session_free(session);
    focal_model_free(model);
  }
};

int count_c_token(int32_t, void* user) {
  ++*static_cast<int*>(user);
  return 1;
}

}  // namespace

TEST_CASE("C API: set_input, run, output, self-test and failed calls allocate nothing") {
  testing::AlignedBuffer file(testing::build_tiny_model(testing::TinyConfig()));
  CModel c(file);
  const std::vector<float> x = testing::random_values(2 * 8 * 8, 3);
  focal_shape shape = {3, {1, 1, 8, 0, 0, 0}};
  focal_self_test_report report{};
  int32_t index = 0;

  const long before = g_allocations.load();
  float checksum = 0.0f;
  int failures = 0;
  for (int i = 0; i < 200; ++i) {
    shape.dims[0] = 1 + i % 2;
    shape.dims[1] = 1 + i % 8;
    const size_t bytes = size_t(shape.dims[0] * shape.dims[1] * 8) * sizeof(float);
    focal_tensor probs{};
    if (focal_session_set_input_by_name(c.session, "x", &shape, x.data(), bytes) != FOCAL_OK ||
        focal_session_run(c.session) != FOCAL_OK || focal_session_output(c.session, 1, &probs) != FOCAL_OK) {
      break;
    }
    checksum += static_cast<const float*>(probs.data)[0];
    failures += focal_model_find_input(c.model, "no such input", &index) == FOCAL_NOT_FOUND;
  }
  const focal_status tested = focal_session_self_test(c.session, &report);
  const long during = g_allocations.load() - before;
  CHECK(during == 0);
  CHECK(tested == FOCAL_OK);
  CHECK(report.failed_cases == 0);
  CHECK(failures == 200);
  CHECK(checksum > 0.0f);
}

TEST_CASE("C API: generating allocates nothing (the generator holds the sampler's scratch)") {
  testing::AlignedBuffer file(read_golden("gpt2_l2_d32_h4"));
  CModel c(file);
  focal_sampling sampling = focal_sampling_default();
  sampling.temperature = 0.8f;
  sampling.top_k = 20;
  sampling.top_p = 0.9f;
  focal_generator* generator = nullptr;
  REQUIRE(focal_generator_create(c.session, &sampling, &generator) == FOCAL_OK);
  const int32_t prompt[] = {5, 17, 3, 99, 42};

  const long before = g_allocations.load();
  int produced = 0;
  for (int round = 0; round < 3; ++round) {
    if (focal_generate(generator, prompt, 5, 60, -1, count_c_token, &produced) != FOCAL_OK) break;
    if (focal_generator_set_sampling(generator, &sampling) != FOCAL_OK) break;
  }
  const long during = g_allocations.load() - before;
  CHECK(produced == 180);
  CHECK(during == 0);
  focal_generator_free(generator);
}

TEST_CASE("C API: stages allocate nothing: encode once, decode step by step") {
  testing::AlignedBuffer file(read_golden("torch_transformer_postln_relu_e2_d1_d32_h4"));
  CModel c(file);
  const int d = 32, src_len = 7;
  const std::vector<float> src = testing::random_values(2 * src_len * d, 5);
  const std::vector<float> tgt = testing::random_values(2 * d, 6);
  const int32_t mask[2 * src_len] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  const focal_shape src_shape = {3, {2, src_len, d, 0, 0, 0}};
  const focal_shape mask_shape = {2, {2, src_len, 0, 0, 0, 0}};
  const focal_shape tgt_shape = {3, {2, 1, d, 0, 0, 0}};
  int32_t encode = -1, decode = -1;
  REQUIRE(focal_session_find_stage(c.session, "encode", &encode) == FOCAL_OK);
  REQUIRE(focal_session_find_stage(c.session, "decode", &decode) == FOCAL_OK);

  const long before = g_allocations.load();
  bool ok = focal_session_set_input_by_name(c.session, "src", &src_shape, src.data(), src.size() * 4) == FOCAL_OK &&
            focal_session_set_input_by_name(c.session, "src_mask", &mask_shape, mask, sizeof(mask)) == FOCAL_OK &&
            focal_session_run_stage(c.session, encode) == FOCAL_OK;
  for (int step = 0; ok && step < 10; ++step) {
    focal_tensor output{};
    ok = focal_session_set_input_by_name(c.session, "tgt", &tgt_shape, tgt.data(), tgt.size() * 4) == FOCAL_OK &&
         focal_session_run_stage(c.session, decode) == FOCAL_OK &&
         focal_session_output_by_name(c.session, "output", &output) == FOCAL_OK;
  }
  const long during = g_allocations.load() - before;
  CHECK(ok);
  CHECK(focal_session_cached_length(c.session) == 10);
  CHECK(during == 0);
}

TEST_CASE("translating allocates nothing, through the C++ API and the C API (greedy and beam)") {
  testing::AlignedBuffer file(read_golden("rnn_bahdanau_lstm_bi_l1_e16_h16_hd24"));
  CModel c(file);
  const int32_t source[] = {4, 9, 5, 7, 6, 8, 4};
  int32_t tokens[20];
  float alignment[20 * 7];
  focal_translate_options options = focal_translate_options_default(c.model);
  options.max_steps = 20;
  focal_translator* greedy = nullptr;
  focal_translator* beam = nullptr;
  REQUIRE(focal_translator_create(c.session, &options, 7, &greedy) == FOCAL_OK);
  options.beam_width = 3;
  REQUIRE(focal_translator_create(c.session, &options, 7, &beam) == FOCAL_OK);
  // The C++ API on its own session and scratch, for the same count.
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  testing::AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  TranslateOptions cpp_options;
  cpp_options.max_steps = 20;
  cpp_options.beam_width = 3;
  std::vector<uint64_t> scratch(translate_scratch_bytes(cpp_options, 7) / 8 + 1);

  const long before = g_allocations.load();
  size_t produced = 0;
  for (int round = 0; round < 3; ++round) {
    focal_translation result{};
    if (focal_translate(greedy, source, 7, tokens, 20, alignment, 20 * 7, &result) != FOCAL_OK) break;
    produced += result.length;
    if (focal_translate(beam, source, 7, tokens, 20, nullptr, 0, &result) != FOCAL_OK) break;
    produced += result.length;
    auto cpp = translate(session.value(), source, 7, cpp_options, scratch.data(), scratch.size() * 8, tokens, nullptr);
    if (!cpp.ok()) break;
    produced += cpp->length;
  }
  const long during = g_allocations.load() - before;
  CHECK(produced > 9);
  CHECK(during == 0);
  focal_translator_free(beam);
  focal_translator_free(greedy);
}

TEST_CASE("C API: a tokenizer encodes and decodes without allocating") {
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Characters;
  spec.vocab = {"<pad>", "<bos>", "<eos>", "<unk>", " ", "a", "b", "c"};
  spec.unk_id = 3;
  ModelWriter writer;
  writer.set_tokenizer(spec);
  auto bytes = writer.finish();
  REQUIRE(bytes.ok());
  testing::AlignedBuffer file(bytes.value());
  focal_model* model = nullptr;
  focal_tokenizer* tokenizer = nullptr;
  REQUIRE(focal_model_load_bytes(file.data(), file.size(), FOCAL_LOAD_DEFAULT, &model) == FOCAL_OK);
  REQUIRE(focal_tokenizer_create(model, 0, 64, &tokenizer) == FOCAL_OK);
  int32_t ids[64];
  char text[64];

  const long before = g_allocations.load();
  size_t total = 0;
  for (int i = 0; i < 100; ++i) {
    size_t count = 0, text_bytes = 0;
    if (focal_tokenizer_encode(tokenizer, "abc cab", 7, ids, 64, &count) != FOCAL_OK ||
        focal_tokenizer_decode(tokenizer, ids, count, text, sizeof(text), &text_bytes) != FOCAL_OK) {
      break;
    }
    total += text_bytes;
  }
  const long during = g_allocations.load() - before;
  CHECK(total == 700);
  CHECK(during == 0);
  focal_tokenizer_free(tokenizer);
  focal_model_free(model);
}
