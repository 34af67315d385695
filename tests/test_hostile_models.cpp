// Files forged with a valid checksum and careless calls of the public API: each is refused
// with a message and nothing else (this suite also runs under ASan and UBSan in the
// host-asan preset, and on armhf, where size_t is 32 bits).
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "focal/focal.h"
#include "focal/gemm.h"
#include "focal/internal/checksum.h"
#include "focal_generated.h"
#include "model_writer.h"
#include "ops/op_checks.h"
#include "support/saturating_size.h"
#include "support/aligned_buffer.h"
#include "support/emulation.h"
#include "support/tiny_model.h"
#include "thread_pool.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

bool contains(const Status& status, const char* text) { return std::strstr(status.message(), text) != nullptr; }

// x [1, 4] -> Dense -> y [1, 3], with the plan's arena size replaced (0: as planned). The
// writer stamps a valid checksum over whatever it is told, as a forger would.
std::vector<uint8_t> dense_model(uint64_t arena_bytes) {
  ModelWriter w;
  const int x = w.add_input("x", DType::kF32, {1, 4});
  const int wt = w.add_constant_f32("w", {3, 4}, std::vector<float>(12, 0.5f));
  const int y = w.add_output("y", DType::kF32, {1, 3});
  w.add_dense("dense", x, wt, -1, y);
  WriteOptions options;
  options.arena_bytes_override = arena_bytes;
  return w.finish(options).value();
}

Result<Model> load(AlignedBuffer& file) { return Model::from_bytes(file.data(), file.size()); }

// x [2, 13] -> Dense on an int8-dot weight 'w' [3, 13]: K pads to 16 in its group of 8,
// N to 32 in its panel, so the file holds padding on both axes.
constexpr size_t kDotOut = 3, kDotIn = 13;

std::vector<uint8_t> int8_dot_model() {
  ModelWriter w;
  w.set_dense_weight_type(DType::kI8);
  w.set_int8_activations(true);
  const int x = w.add_input("x", DType::kF32, {2, int64_t(kDotIn)});
  const int wt = w.add_constant_f32("w", {int64_t(kDotOut), int64_t(kDotIn)},
                                    testing::random_values(kDotOut * kDotIn, 4));
  const int y = w.add_output("y", DType::kF32, {2, int64_t(kDotOut)});
  w.add_dense("dense", x, wt, -1, y);
  return w.finish().value();
}

// The file with `change` applied to the bytes of weight 'w' and the checksum stamped
// again, as a forger would.
template <class Change>
std::vector<uint8_t> forged_weight(const std::vector<uint8_t>& bytes, Change change) {
  AlignedBuffer original(bytes);
  const auto model = load(original);
  REQUIRE(model.ok());
  const fb::Tensor& w = *model->schema().tensors()->Get(static_cast<uint32_t>(model->find_tensor("w")));
  REQUIRE(w.layout() == fb::TensorLayout_DenseInt8Dot);
  std::vector<uint8_t> forged = bytes;
  change(forged.data() + (model->data_segment() - model->bytes()) + w.data()->offset());
  const fb::Model& root = *fb::GetSizePrefixedModel(forged.data());
  const size_t at = static_cast<size_t>(reinterpret_cast<const uint8_t*>(root.checksum()) - forged.data());
  const uint32_t crc = crc32_skipping(forged.data(), forged.size(), at);
  std::memcpy(forged.data() + at, &crc, sizeof(crc));
  return forged;
}

}  // namespace

TEST_CASE("hostile: int8-dot weights with a wrong column sum, non-zero padding or a bad scale are refused") {
  const std::vector<uint8_t> valid = int8_dot_model();
  AlignedBuffer valid_file(valid);
  REQUIRE(load(valid_file).ok());
  // Offsets of the int8-dot layout (focal/gemm.h): 2 groups of 8 k, one panel of 32.
  const size_t groups = 2, sums = 2 * 32 * 8 + 32 * 4;  // panels, then 32 scales
  const auto weight_byte = [&](size_t n, size_t k) { return ((k / 8) * 32 + n) * 8 + k % 8; };
  struct Forgery {
    const char* what;
    std::function<void(uint8_t*)> change;
    const char* message;
  };
  const Forgery forgeries[] = {
      {"column sum of output 1 off by one",
       [&](uint8_t* w) { int32_t sum; std::memcpy(&sum, w + sums + 4, 4); sum += 1; std::memcpy(w + sums + 4, &sum, 4); },
       "a column sum does not match its weights"},
      {"a weight past K (padding of the last group)",
       [&](uint8_t* w) { w[weight_byte(0, kDotIn)] = 1; },
       "panel padding"},
      {"a weight past N (padding of the panel), its column sum made to match",
       [&](uint8_t* w) {
         w[weight_byte(kDotOut, 0)] = 5;
         const int32_t sum = 5;
         std::memcpy(w + sums + 4 * kDotOut, &sum, 4);
       },
       "panel padding"},
      {"an infinite scale",
       [&](uint8_t* w) { const float inf = INFINITY; std::memcpy(w + groups * 32 * 8 + 4, &inf, 4); },
       "scale"},
  };
  for (const Forgery& f : forgeries) {
    CAPTURE(f.what);
    AlignedBuffer file(forged_weight(valid, f.change));
    const auto model = load(file);
    REQUIRE(!model.ok());
    CHECK(model.status().code() == StatusCode::kInvalidModel);
    CHECK(contains(model.status(), "int8-dot weight 'w' is malformed"));
    CHECK(contains(model.status(), f.message));
  }
}

TEST_CASE("hostile: the workspace for int8 activations saturates at rows no target can hold") {
  AlignedBuffer file(int8_dot_model());
  const auto model = load(file);
  REQUIRE(model.ok());
  const fb::Tensor& w = *model->schema().tensors()->Get(static_cast<uint32_t>(model->find_tensor("w")));
  GemmParams p;
  p.m = 2;
  p.k = kDotIn;
  p.int8_activations = true;
  CHECK(packed_dense_workspace_bytes(w, 2) == gemm_workspace_bytes(p));
  // (2^31 - 1)^2 rows of 16 bytes: beyond 64 bits as well as 32.
  const int64_t rows = (int64_t(1) << 62) - 1;
  CHECK(packed_dense_workspace_bytes(w, rows) == kSaturatedSize);
  // 2^30 rows: 2^34 bytes of rows and 2^32 of scales, which only a 64-bit target can count.
  const uint64_t exact = (uint64_t(1) << 34) + (uint64_t(1) << 32);
  CHECK(uint64_t(packed_dense_workspace_bytes(w, int64_t(1) << 30)) ==
        (sizeof(size_t) == 4 ? uint64_t(kSaturatedSize) : exact));
}

TEST_CASE("hostile: a plan's arena size that would wrap when rounded or added is refused") {
  for (uint64_t arena : {~uint64_t(0) - 7, ~uint64_t(0), uint64_t(1) << 63, uint64_t(SIZE_MAX / 8) + 64}) {
    CAPTURE(arena);
    AlignedBuffer file(dense_model(arena));
    const auto model = load(file);
    REQUIRE(!model.ok());
    CHECK(contains(model.status(), "memory plan arena of"));
  }
}

TEST_CASE("hostile: a plan beyond a 32-bit address space is refused there, and sized exactly elsewhere") {
  const uint64_t arena = uint64_t(1) << 30;  // 1 GiB: within 64-bit limits, past armhf's 512 MiB
  AlignedBuffer file(dense_model(arena));
  const auto model = load(file);
  if (sizeof(size_t) < 8) {
    REQUIRE(!model.ok());
    CHECK(contains(model.status(), "exceeds this target's limit"));
  } else {
    REQUIRE_MESSAGE(model.ok(), model.status().message());
    const Result<size_t> needed = Session::required_arena_bytes(*model, SessionOptions());
    REQUIRE(needed.ok());
    CHECK(needed.value() >= arena);
    // An arena smaller than that is refused before anything is written to it.
    AlignedBuffer small(4096);
    const auto session = Session::create(*model, SessionOptions(), small.data(), small.size());
    CHECK(session.status().code() == StatusCode::kResourceExhausted);
  }
}

TEST_CASE("hostile: workspace sizes saturate instead of wrapping") {
  CHECK(saturating_mul(SIZE_MAX / 2 + 1, 2) == kSaturatedSize);
  CHECK(saturating_add(SIZE_MAX, 1) == kSaturatedSize);
  CHECK(saturating_product(int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 31) == kSaturatedSize);
  CHECK(saturating_size(-1) == kSaturatedSize);
  CHECK(saturating_float_bytes(SIZE_MAX / 4) == kSaturatedSize);
  CHECK(saturating_float_bytes(3) == 64);
  CHECK(saturating_product(3, 5, 7) == 105);
  // A decode over a 2^31-key cache: its scratch is far beyond any address space.
  AttentionParams p;
  p.q_len = 1;
  p.kv_len = size_t(1) << 31;
  p.head_dim = 256;
  p.heads = p.kv_heads = 65535;
  p.batch = size_t(1) << 20;
  CHECK(attention_workspace_bytes(p, 1) == 0);  // refused: 0 is the kernel API's "invalid"
}

namespace {

// x [1, 4, 8] -> MultiHeadAttention (2 heads of 4) -> y, the spec as `edit` leaves it.
using AttentionEdit = std::function<void(ModelWriter&, int batch, ModelWriter::MultiHeadAttentionSpec&)>;
std::vector<uint8_t> attention_model(const AttentionEdit& edit) {
  ModelWriter w;
  const int batch = w.add_symbol("batch", 1);
  const int seq = w.add_symbol("seq", 4);
  const int x = w.add_input("x", DType::kF32, {1, 4, 8}, {batch, seq, -1});
  const auto weights = [&](const char* name) { return w.add_constant_f32(name, {8, 8}, std::vector<float>(64, 0.1f)); };
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = x;
  s.wq = weights("wq");
  s.wk = weights("wk");
  s.wv = weights("wv");
  s.wo = weights("wo");
  s.num_heads = s.num_kv_heads = 2;
  s.head_dim = 4;
  edit(w, batch, s);
  const int y = w.add_output("y", DType::kF32, {1, 4, 8}, {batch, seq, -1});
  w.add_multi_head_attention("attention", s, y);
  return w.finish().value();
}

}  // namespace

TEST_CASE("hostile: a MultiHeadAttention op with a V state but no K state is refused") {
  AlignedBuffer file(attention_model([](ModelWriter& w, int batch, ModelWriter::MultiHeadAttentionSpec& s) {
    s.v_state = w.add_state("v_cache", DType::kF32, {1, 4, 8}, {batch, -1, -1});
  }));
  const auto model = load(file);
  REQUIRE(!model.ok());
  CHECK(contains(model.status(), "k and v states come together"));
}

TEST_CASE("hostile: a stored RoPE frequency table of the wrong length or with bad entries is refused") {
  const auto with_table = [](std::vector<float> table, fb::RopeLayout rope) {
    return attention_model([&](ModelWriter&, int, ModelWriter::MultiHeadAttentionSpec& s) {
      s.rope = rope;
      s.rope_inv_freq = table;
    });
  };
  AlignedBuffer good(with_table({1.0f, 0.125f}, fb::RopeLayout_HalfSplit));  // head_dim 4: 2 pairs
  CHECK(load(good).ok());
  const std::pair<std::vector<float>, const char*> bad[] = {
      {{1.0f, 0.5f, 0.25f}, "rope_inv_freq must be rotary_dim / 2 = 2 entries in (0, 1], with rope"},
      {{1.0f, NAN}, "rope_inv_freq must be rotary_dim / 2 = 2 entries in (0, 1]"},
      {{1.0f, 0.0f}, "rope_inv_freq must be rotary_dim / 2 = 2 entries in (0, 1]"},
      {{-1.0f, INFINITY}, "rope_inv_freq must be rotary_dim / 2 = 2 entries in (0, 1]"},
      {{1.0f, 3.0e38f}, "rope_inv_freq must be rotary_dim / 2 = 2 entries in (0, 1]"}};
  for (const auto& [table, message] : bad) {
    CAPTURE(message);
    AlignedBuffer file(with_table(table, fb::RopeLayout_HalfSplit));
    const auto model = load(file);
    REQUIRE(!model.ok());
    CHECK(contains(model.status(), message));
  }
  AlignedBuffer no_rope(with_table({1.0f, 0.5f}, fb::RopeLayout_None));
  const auto model = load(no_rope);
  REQUIRE(!model.ok());
  CHECK(contains(model.status(), "rope_inv_freq must be rotary_dim / 2 = 0 entries in (0, 1], with rope"));
}

TEST_CASE("hostile: a RoPE base below 1 is refused: its frequencies would overflow the angles") {
  // rope_theta = 1e-45 passed "finite and > 0"; 1 / theta^(2k/r) then overflowed and
  // xsimd's sin and cos shifted a negative value (UBSan).
  for (const float theta : {1e-45f, 0.5f, 0.0f, -2.0f}) {
    CAPTURE(theta);
    AlignedBuffer file(attention_model([&](ModelWriter&, int, ModelWriter::MultiHeadAttentionSpec& s) {
      s.rope = fb::RopeLayout_HalfSplit;
      s.rope_theta = theta;
    }));
    const auto model = load(file);
    REQUIRE(!model.ok());
    CHECK(contains(model.status(), "rope_theta finite and >= 1"));
  }
  AlignedBuffer base_one(attention_model([&](ModelWriter&, int, ModelWriter::MultiHeadAttentionSpec& s) {
    s.rope = fb::RopeLayout_HalfSplit;
    s.rope_theta = 1.0f;
  }));
  CHECK(load(base_one).ok());
}

TEST_CASE("careless use: null pointers into the session are refused with a message") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = load(file);
  REQUIRE(model.ok());
  AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  CHECK(session->find_input(nullptr) == -1);
  CHECK(session->find_output(nullptr) == -1);
  CHECK(session->find_stage(nullptr) == -1);
  CHECK(model->find_tensor(nullptr) == -1);
  Shape shape;
  shape.rank = 3;
  shape.dims[0] = 1;
  shape.dims[1] = 4;
  shape.dims[2] = 8;
  const Status null_input = session->set_input(0, shape, nullptr, 4 * 8 * sizeof(float));
  CHECK(contains(null_input, "data is null"));
  const Status null_rows = session->permute_state_batch(nullptr, 1);
  CHECK(null_rows.code() == StatusCode::kInvalidArgument);
  CHECK(contains(null_rows, "rows is null"));
}

TEST_CASE("careless use: a thread pool of too many or too few workers says so and still runs") {
  for (int workers : {0, -5, 1000000}) {
    CAPTURE(workers);
    ThreadPool pool(workers);
    CHECK(!pool.status().ok());
    CHECK(pool.workers() == 1);
    std::atomic<int> ran{0};
    pool.run(10, [](void* c, size_t, int) { static_cast<std::atomic<int>*>(c)->fetch_add(1); }, &ran);
    CHECK(ran.load() == 10);
  }
  if (testing::kUnderEmulation) return;  // qemu-user cannot start threads (shared/NOTES.md)
  ThreadPool fine(2);
  CHECK(fine.status().ok());
  CHECK(fine.workers() == 2);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)  // they reserve huge address ranges
// In a child process whose address space is capped just above its current size, so
// pthread_create fails for want of stack memory (as root, RLIMIT_NPROC would not apply).
TEST_CASE("careless use: a thread pool whose threads cannot all start reports it, and neither blocks nor throws" *
          doctest::skip(testing::kUnderEmulation)) {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    long pages = 0;
    FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr || std::fscanf(statm, "%ld", &pages) != 1) _exit(2);
    std::fclose(statm);
    const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t(256) << 20);
    const rlimit limit{cap, cap};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
    ThreadPool pool(ThreadPool::kMaxWorkers);  // 1023 default 8 MiB stacks: far past the cap
    const bool reported = !pool.status().ok() && std::strstr(pool.status().message(), "could not start thread") != nullptr;
    _exit(reported && pool.workers() == 1 ? 0 : 4);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
#endif
