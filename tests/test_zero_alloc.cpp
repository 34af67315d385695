// After a session is created, set_input/run/output allocate nothing. This executable
// replaces malloc and operator new for the whole process and counts every call.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "focal/focal.h"
#include "support/aligned_buffer.h"
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

TEST_CASE("set_input, run, output and self-tests allocate nothing after session creation") {
  testing::AlignedBuffer file(testing::build_tiny_model());
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
