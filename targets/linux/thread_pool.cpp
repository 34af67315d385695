#include "thread_pool.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace focal {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

// Spins until done() or kSpinMicroseconds have passed; true when done() held. The clock
// is read once every 32 pauses (a pause is 3 to 140 cycles depending on the CPU).
template <class Done>
bool spin_until(bool spin, Done done) {
  if (done()) return true;
  if (!spin) return false;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end = Clock::now() + std::chrono::microseconds(ThreadPool::kSpinMicroseconds);
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      cpu_relax();
      if (done()) return true;
    }
    if (Clock::now() >= end) return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(int workers) {
  if (workers < 1 || workers > kMaxWorkers) {
    status_ = Status::error(StatusCode::kInvalidArgument, "thread pool of %d workers: expected 1 to %d",
                            workers, kMaxWorkers);
    return;
  }
  const unsigned cores = std::thread::hardware_concurrency();
  spin_ = cores == 0 || static_cast<unsigned>(workers) <= cores;
  start_threads(workers);
}

ThreadPool::~ThreadPool() { stop_threads(); }

void* ThreadPool::thread_main(void* start) {
  const Start* s = static_cast<const Start*>(start);
  s->pool->work(s->worker);
  return nullptr;
}

// pthread_create reports failure as a value (std::thread would throw, and a pool half
// built with waiting threads cannot be torn down by unwinding).
void ThreadPool::start_threads(int workers) {
  starts_.resize(static_cast<size_t>(workers - 1));
  threads_.reserve(starts_.size());
  for (int w = 1; w < workers; ++w) {
    Start& start = starts_[static_cast<size_t>(w - 1)];
    start = Start{this, w};
    pthread_t thread;
    const int error = pthread_create(&thread, nullptr, &ThreadPool::thread_main, &start);
    if (error != 0) {
      status_ = Status::error(StatusCode::kResourceExhausted,
                              "thread pool: could not start thread %d of %d (%s); running on one thread",
                              w, workers - 1, std::strerror(error));
      stop_threads();
      return;
    }
    threads_.push_back(thread);
  }
}

void ThreadPool::stop_threads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (pthread_t t : threads_) pthread_join(t, nullptr);
  threads_.clear();
}

void ThreadPool::drain(int worker) {
  for (size_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) task_(context_, i, worker);
}

void ThreadPool::run(size_t count, void (*task)(void*, size_t, int), void* context) {
  if (threads_.empty() || count <= 1) {
    for (size_t i = 0; i < count; ++i) task(context, i, 0);
    return;
  }
  std::lock_guard<std::mutex> serial(run_mutex_);  // another session's run finishes first
  count_ = count;
  task_ = task;
  context_ = context;
  next_.store(0, std::memory_order_relaxed);
  const uint64_t open = state_.load(std::memory_order_relaxed) + 1;
  state_.store(open);  // seq_cst: ordered before the sleepers_ load below
  if (sleepers_.load() > 0) {
    // Taking the lock orders this after a sleeper's check of state_, so the
    // notification cannot be missed.
    { std::lock_guard<std::mutex> lock(mutex_); }
    wake_.notify_all();
  }
  drain(0);
  // Every task is taken. Close the run: a worker that has not joined yet finds it closed
  // and leaves without touching it; wait for those inside (seq_cst store, then load:
  // a worker that joins increments active_ before it reads state_).
  state_.store(open + 1);
  if (!spin_until(spin_, [this] { return active_.load() == 0; })) {
    caller_asleep_.store(true);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return active_.load() == 0; });
    caller_asleep_.store(false, std::memory_order_relaxed);
  }
}

// The next open run after `seen` (or any value when stopping).
uint64_t ThreadPool::wait_for_run(uint64_t seen) {
  const auto ready = [&] {
    const uint64_t s = state_.load();  // seq_cst: after the sleepers_ increment below
    return stopping_.load(std::memory_order_relaxed) || (s != seen && (s & 1) != 0);
  };
  if (!spin_until(spin_, ready)) {
    sleepers_.fetch_add(1);  // seq_cst: before the check under the lock
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, ready);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }
  return state_.load(std::memory_order_acquire);
}

void ThreadPool::work(int worker) {
  uint64_t seen = 0;
  for (;;) {
    wait_for_run(seen);
    if (stopping_.load(std::memory_order_relaxed)) return;
    active_.fetch_add(1);  // seq_cst: before reading state_ (see run())
    const uint64_t s = state_.load();
    if ((s & 1) != 0) drain(worker);  // still open: its fields are the current run's
    seen = s;
    if (active_.fetch_sub(1) == 1 && caller_asleep_.load()) {
      // The last one out wakes the caller; the lock orders this after its check.
      { std::lock_guard<std::mutex> lock(mutex_); }
      done_.notify_one();
    }
  }
}

}  // namespace focal
