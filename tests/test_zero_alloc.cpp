// After a session is created, set_input/run/output allocate nothing. This executable
// replaces malloc and operator new for the whole process and counts every call.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

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
