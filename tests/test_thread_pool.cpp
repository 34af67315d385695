// focal::ThreadPool (targets/linux/thread_pool.h): every index of every run is computed
// exactly once, with workers that are spinning, asleep (after a pause longer than their
// spin) or joining late, and by the worker numbers the pool promises.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "support/emulation.h"
#include "thread_pool.h"

using focal::ThreadPool;

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> bad_worker{0};
  int workers = 1;
  explicit Counts(size_t n) : hits(n) {}
};

void count_task(void* context, size_t index, int worker) {
  Counts& c = *static_cast<Counts*>(context);
  if (worker < 0 || worker >= c.workers) c.bad_worker.fetch_add(1);
  c.hits[index].fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

TEST_CASE("thread pool: every index runs once, with workers spinning, asleep or late" *
          doctest::skip(focal::testing::kUnderEmulation)) {  // qemu-user cannot start threads
  for (int workers : {1, 2, 3}) {
    CAPTURE(workers);
    ThreadPool pool(workers);
    REQUIRE(pool.status().ok());
    REQUIRE(pool.workers() == workers);
    for (int round = 0; round < 3000; ++round) {
      const size_t count = size_t(round % 7);  // 0 and 1 run on the caller
      Counts c(count);
      c.workers = workers;
      if (round % 1000 == 999) {  // past the spin: the workers are asleep
        std::this_thread::sleep_for(std::chrono::microseconds(2 * ThreadPool::kSpinMicroseconds));
      }
      pool.run(count, count_task, &c);
      CHECK(c.bad_worker.load() == 0);
      for (size_t i = 0; i < count; ++i) {
        if (c.hits[i].load() != 1) {
          FAIL_CHECK("round " << round << ": index " << i << " ran " << c.hits[i].load() << " times");
          break;
        }
      }
    }
  }
}
