// Errors as values. The engine never throws, aborts or exits: every fallible call
// returns a Status (or a Result<T>) whose message names what was wrong and where.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

namespace focal {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,    // the caller passed something unusable (null, wrong size, ...)
  kInvalidModel,       // the model file is corrupt, hostile or inconsistent
  kUnsupported,        // a valid model that this engine version cannot run
  kOutOfRange,         // input data outside what was planned (length, token id, ...)
  kResourceExhausted,  // an arena or buffer too small
  kIoError,            // reading a file failed (platform helpers only)
};

const char* status_code_name(StatusCode code);

// A code and a message held inline (no heap), so errors can be reported on a
// microcontroller and from code paths that must not allocate.
class Status {
 public:
  static constexpr size_t kMaxMessage = 240;

  Status() = default;  // ok
  // printf-style message. Truncated (never overflowing) past kMaxMessage - 1 chars.
  static Status error(StatusCode code, const char* format, ...)
      __attribute__((format(printf, 2, 3)));

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const char* message() const { return ok() ? "ok" : message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  char message_[kMaxMessage] = {};
};

// A value or the Status that explains why there is none.
template <class T>
class Result {
 public:
  Result(T value) : has_value_(true) { new (&storage_) T(std::move(value)); }  // NOLINT
  // cppcheck-suppress uninitMemberVar ; storage_ holds a T only when has_value_
  Result(const Status& status) : status_(status) {}  // NOLINT: implicit, like StatusOr
  Result(const Result& other) : status_(other.status_), has_value_(other.has_value_) {
    if (has_value_) new (&storage_) T(other.value());
  }
  Result(Result&& other) noexcept : status_(other.status_), has_value_(other.has_value_) {
    if (has_value_) new (&storage_) T(std::move(other.value()));
  }
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (has_value_) value().~T();
  }

  bool ok() const { return has_value_; }
  const Status& status() const { return status_; }
  // Only valid when ok().
  T& value() { return *reinterpret_cast<T*>(&storage_); }
  const T& value() const { return *reinterpret_cast<const T*>(&storage_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  bool has_value_ = false;
  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace focal

// Returns early from the enclosing function when `expr` yields a non-ok Status.
#define FOCAL_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::focal::Status focal_status_ = (expr);        \
    if (!focal_status_.ok()) return focal_status_; \
  } while (0)
