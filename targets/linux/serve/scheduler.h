// Admission to the fixed sessions (served_model.h's slots): a request takes a free slot
// of its model at once, or waits in a bounded queue (at most `queue_limit` requests
// waiting, all models together) for at most `wait_limit`; a full queue is refused with
// 429, a wait that times out and anything after shutdown with 503. A freed slot goes to
// whichever waiter of its model wakes first (no strict order among waiters).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "serve/api_error.h"
#include "serve/served_model.h"

namespace focal {
namespace serve {

class Scheduler;

// A slot held by one request, given back when the lease ends.
class Lease {
 public:
  Lease() = default;
  Lease(Scheduler* scheduler, ServedModel* model, Slot* slot) : scheduler_(scheduler), model_(model), slot_(slot) {}
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  Lease(Lease&& other) noexcept { *this = std::move(other); }
  Lease& operator=(Lease&& other) noexcept;
  ~Lease() { release(); }

  Slot* slot() const { return slot_; }
  void release();

 private:
  Scheduler* scheduler_ = nullptr;
  ServedModel* model_ = nullptr;
  Slot* slot_ = nullptr;
};

class Scheduler {
 public:
  Scheduler(size_t queue_limit, std::chrono::milliseconds wait_limit)
      : queue_limit_(queue_limit), wait_limit_(wait_limit) {}

  // A slot of `model`, or the refusal (429 queue full, 503 timeout or shutting down).
  ApiError acquire(ServedModel& model, Lease* lease);
  // Refuses every later request and wakes the waiting ones (503).
  void shut_down();
  bool shutting_down() const;

  size_t waiting() const;
  size_t busy() const;

 private:
  friend class Lease;
  void release(ServedModel& model, Slot& slot);

  mutable std::mutex mutex_;
  std::condition_variable freed_;
  size_t queue_limit_;
  std::chrono::milliseconds wait_limit_;
  size_t waiting_ = 0;
  size_t busy_ = 0;
  bool shut_down_ = false;
};

}  // namespace serve
}  // namespace focal
