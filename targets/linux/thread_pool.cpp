#include "thread_pool.h"

namespace focal {

ThreadPool::ThreadPool(int workers) {
  for (int w = 1; w < workers; ++w) threads_.emplace_back([this, w] { work(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::drain(int worker) {
  for (size_t i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) task_(context_, i, worker);
}

void ThreadPool::run(size_t count, void (*task)(void*, size_t, int), void* context) {
  if (threads_.empty() || count <= 1) {
    for (size_t i = 0; i < count; ++i) task(context, i, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    count_ = count;
    task_ = task;
    context_ = context;
    next_.store(0);
    busy_ = static_cast<int>(threads_.size());
    ++generation_;
  }
  wake_.notify_all();
  drain(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return busy_ == 0; });
}

void ThreadPool::work(int worker) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    drain(worker);
    std::lock_guard<std::mutex> lock(mutex_);
    if (--busy_ == 0) done_.notify_one();
  }
}

}  // namespace focal
