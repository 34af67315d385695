// Engine statuses as Python exceptions: every failed focal::Status becomes focal.Error
// (a RuntimeError) carrying the engine's message, with `.code` naming the status code.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "focal/status.h"

namespace focal {
namespace python {

// Raises focal.Error (throws pybind11::error_already_set); needs the GIL.
[[noreturn]] void raise_error(StatusCode code, const std::string& message);
[[noreturn]] inline void raise_status(const Status& status) { raise_error(status.code(), status.message()); }

inline void check(const Status& status) {
  if (!status.ok()) raise_status(status);
}

template <class T>
T value_or_raise(Result<T>&& result) {
  if (!result.ok()) raise_status(result.status());
  return std::move(result.value());
}

}  // namespace python
}  // namespace focal
