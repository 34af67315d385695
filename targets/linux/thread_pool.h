// A fixed pool of worker threads implementing focal::ParallelFor: created once (with a
// session, a benchmark, an app), then run() hands out task indices through an atomic
// counter, so uneven tasks (causal attention rows) balance themselves. The calling
// thread works too, as worker 0.
//
// One run costs the caller one publication (a store the spinning workers see) and one
// barrier: when its own share is done it closes the run, so a worker that has not joined
// by then never does, and waits only for the workers already inside it (those still
// running a task). A worker that is slow to wake therefore never holds the caller up once
// the caller has run every task itself; it only contributes less.
//
// Between runs idle workers spin (kSpinMicroseconds, a time rather than a count of pause
// instructions, whose cost differs tenfold between CPUs) before sleeping, so the short
// gaps of a decode step (the caller's own element-wise ops between two dense layers) do
// not put them to sleep: waking a sleeping thread took about 27 us on a 2-core KVM guest
// (Zen 5), more than a whole dense layer of a small model. With more workers than cores
// spinning would only steal the time of the thread being waited for, so they sleep at
// once. run() allocates nothing.
//
// One pool may serve several sessions on several threads: concurrent run() calls are
// serialized (each waits for the one before to finish), so sharing is safe but gives no
// extra parallelism; give each concurrently running session its own pool for that. A
// task must not call run() on the pool that runs it (it would wait for itself).
#pragma once

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "focal/parallel.h"
#include "focal/status.h"

namespace focal {

class ThreadPool final : public ParallelFor {
 public:
  // Starts workers - 1 threads (workers from 1 to kMaxWorkers). It never throws or
  // blocks: when `workers` is out of range or the system cannot start every thread, the
  // pool keeps no threads (workers() is 1, runs are on the caller's thread) and status()
  // says why.
  explicit ThreadPool(int workers);
  ~ThreadPool() override;
  static constexpr int kMaxWorkers = 1024;
  // How long an idle worker (and a caller waiting for workers still in a task) spins
  // before sleeping, in microseconds.
  static constexpr int kSpinMicroseconds = 500;
  const Status& status() const { return status_; }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int workers() const override { return static_cast<int>(threads_.size()) + 1; }
  void run(size_t count, void (*task)(void* context, size_t index, int worker),
           void* context) override;

 private:
  struct Start {
    ThreadPool* pool;
    int worker;
  };
  static void* thread_main(void* start);
  void start_threads(int workers);
  void stop_threads();
  void work(int worker);
  void drain(int worker);
  uint64_t wait_for_run(uint64_t seen);

  Status status_;
  std::vector<Start> starts_;     // one per thread, alive as long as the thread
  std::vector<pthread_t> threads_;
  std::mutex run_mutex_;  // held for a whole run(): concurrent callers take turns
  std::mutex mutex_;      // for sleeping only
  std::condition_variable wake_;
  std::condition_variable done_;
  bool spin_ = false;  // false when oversubscribed: sleep at once
  std::atomic<bool> stopping_{false};
  // 2 * (runs so far) + 1 while the current run is open to workers joining, even once it
  // is closed. Workers wait for an odd value they have not seen.
  // Each on its own cache line: spinning workers read state_ while tasks are claimed
  // from next_ and workers check in and out of active_.
  alignas(64) std::atomic<uint64_t> state_{0};
  alignas(64) std::atomic<int> active_{0};  // workers that may be inside the current run
  std::atomic<int> sleepers_{0};  // workers asleep on wake_ (or about to be)
  std::atomic<bool> caller_asleep_{false};
  // The current run: written before state_ opens it, unchanged until it is closed and
  // active_ is 0.
  size_t count_ = 0;
  void (*task_)(void*, size_t, int) = nullptr;
  void* context_ = nullptr;
  alignas(64) std::atomic<size_t> next_{0};
};

}  // namespace focal
