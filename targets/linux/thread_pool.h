// A fixed pool of worker threads implementing focal::ParallelFor: created once (with a
// session, a benchmark, an app), then run() hands out task indices through an atomic
// counter, so uneven tasks (causal attention rows) balance themselves. The calling
// thread works too, as worker 0. When there are no more workers than cores, idle
// workers (and the caller waiting for them) spin for a few tens of microseconds before
// sleeping, so back-to-back runs (decode steps) do not pay a wake-up each; with more
// workers than cores spinning would only steal the time of the thread being waited
// for, so they sleep at once. run() allocates nothing.
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

  Status status_;
  std::vector<Start> starts_;     // one per thread, alive as long as the thread
  std::vector<pthread_t> threads_;
  std::mutex run_mutex_;  // held for a whole run(): concurrent callers take turns
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  int spins_ = 0;  // spin iterations before sleeping (0 when oversubscribed)
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> generation_{0};  // bumped by every run(); workers wait for a new one
  std::atomic<int> busy_{0};             // workers still draining the current run
  // The current run: written before generation_ is bumped, unchanged until busy_ is 0.
  size_t count_ = 0;
  void (*task_)(void*, size_t, int) = nullptr;
  void* context_ = nullptr;
  std::atomic<size_t> next_{0};
};

}  // namespace focal
