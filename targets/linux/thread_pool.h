// A fixed pool of worker threads implementing focal::ParallelFor: created once (with a
// session, a benchmark, an app), then run() hands out task indices through an atomic
// counter, so uneven tasks (causal attention rows) balance themselves. The calling
// thread works too, as worker 0. When there are no more workers than cores, idle
// workers (and the caller waiting for them) spin for a few tens of microseconds before
// sleeping, so back-to-back runs (decode steps) do not pay a wake-up each; with more
// workers than cores spinning would only steal the time of the thread being waited
// for, so they sleep at once. run() allocates nothing.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "focal/parallel.h"

namespace focal {

class ThreadPool final : public ParallelFor {
 public:
  explicit ThreadPool(int workers);  // workers >= 1; workers - 1 threads are started
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int workers() const override { return static_cast<int>(threads_.size()) + 1; }
  void run(size_t count, void (*task)(void* context, size_t index, int worker),
           void* context) override;

 private:
  void work(int worker);
  void drain(int worker);

  std::vector<std::thread> threads_;
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
