#include "thread_pool.h"

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

constexpr int kSpinsBeforeSleep = 4096;  // about 20-50 us

}  // namespace

ThreadPool::ThreadPool(int workers) {
  if (workers < 1 || workers > kMaxWorkers) {
    status_ = Status::error(StatusCode::kInvalidArgument, "thread pool of %d workers: expected 1 to %d",
                            workers, kMaxWorkers);
    return;
  }
  const unsigned cores = std::thread::hardware_concurrency();
  spins_ = cores == 0 || static_cast<unsigned>(workers) <= cores ? kSpinsBeforeSleep : 0;
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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    count_ = count;
    task_ = task;
    context_ = context;
    next_.store(0);
    busy_.store(static_cast<int>(threads_.size()));
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  drain(0);
  // The others finish their last task on their own cores: spin a little, then sleep.
  for (int spin = 0; spin < spins_ && busy_.load(std::memory_order_acquire) != 0; ++spin) cpu_relax();
  if (busy_.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_.load(std::memory_order_acquire) == 0; });
  }
}

void ThreadPool::work(int worker) {
  uint64_t seen = 0;
  for (;;) {
    for (int spin = 0; spin < spins_ && generation_.load(std::memory_order_acquire) == seen; ++spin) {
      cpu_relax();
    }
    if (generation_.load(std::memory_order_acquire) == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_.load(std::memory_order_acquire) != seen; });
    }
    if (stopping_) return;
    seen = generation_.load(std::memory_order_acquire);
    drain(worker);
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // The last one out wakes the caller if it went to sleep. Taking the lock orders
      // this after the caller's check, so the notification cannot be missed.
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace focal
