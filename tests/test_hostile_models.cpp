// Files forged with a valid checksum and careless calls of the public API: each is refused
// with a message and nothing else (this suite also runs under ASan and UBSan in the
// host-asan preset, and on armhf, where size_t is 32 bits).
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "focal/focal.h"
#include "model_writer.h"
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

}  // namespace

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

TEST_CASE("hostile: a MultiHeadAttention op with a V state but no K state is refused") {
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
  s.v_state = w.add_state("v_cache", DType::kF32, {1, 4, 8}, {batch, -1, -1});
  s.num_heads = s.num_kv_heads = 2;
  s.head_dim = 4;
  const int y = w.add_output("y", DType::kF32, {1, 4, 8}, {batch, seq, -1});
  w.add_multi_head_attention("attention", s, y);
  AlignedBuffer file(w.finish().value());
  const auto model = load(file);
  REQUIRE(!model.ok());
  CHECK(contains(model.status(), "k and v states come together"));
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
