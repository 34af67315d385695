#include "serve/scheduler.h"

#include <string>

namespace focal {
namespace serve {

Lease& Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    release();
    scheduler_ = other.scheduler_;
    model_ = other.model_;
    slot_ = other.slot_;
    other.slot_ = nullptr;
  }
  return *this;
}

void Lease::release() {
  if (slot_ != nullptr) scheduler_->release(*model_, *slot_);
  slot_ = nullptr;
}

namespace {

Slot* free_slot(ServedModel& model) {
  for (auto& slot : model.slots()) {
    if (!slot->busy) return slot.get();
  }
  return nullptr;
}

}  // namespace

ApiError Scheduler::acquire(ServedModel& model, Lease* lease) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto shutting = [] {
    return api_error(503, "server_unavailable", "shutting_down", "", "the server is shutting down");
  };
  if (shut_down_) return shutting();
  Slot* slot = free_slot(model);
  if (slot == nullptr) {
    if (waiting_ >= queue_limit_) {
      return api_error(429, "server_busy", "queue_full", "",
                       "all " + std::to_string(model.slots().size()) + " sessions of model '" + model.name() +
                           "' are busy and the queue holds its limit of " + std::to_string(queue_limit_) +
                           " waiting requests (--queue); retry later");
    }
    ++waiting_;
    const bool got = freed_.wait_for(lock, wait_limit_, [&] { return shut_down_ || (slot = free_slot(model)) != nullptr; });
    --waiting_;
    if (shut_down_) return shutting();
    if (!got) {
      return api_error(503, "server_busy", "queue_timeout", "",
                       "no session of model '" + model.name() + "' was free within the queue's wait limit of " +
                           std::to_string(wait_limit_.count() / 1000) + " s (--queue-timeout)");
    }
  }
  slot->busy = true;
  ++busy_;
  *lease = Lease(this, &model, slot);
  return ApiError();
}

void Scheduler::release(ServedModel& model, Slot& slot) {
  (void)model;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot.busy = false;
    --busy_;
  }
  freed_.notify_all();
}

void Scheduler::shut_down() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shut_down_ = true;
  }
  freed_.notify_all();
}

bool Scheduler::shutting_down() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return shut_down_;
}

size_t Scheduler::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_;
}

size_t Scheduler::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_;
}

}  // namespace serve
}  // namespace focal
