#include "focal/status.h"

#include <cstdarg>

#include "support/format_message.h"

namespace focal {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kInvalidModel:
      return "invalid model";
    case StatusCode::kUnsupported:
      return "unsupported";
    case StatusCode::kOutOfRange:
      return "out of range";
    case StatusCode::kResourceExhausted:
      return "resource exhausted";
    case StatusCode::kIoError:
      return "i/o error";
  }
  return "unknown status";
}

Status Status::error(StatusCode code, const char* format, ...) {
  Status status;
  status.code_ = code == StatusCode::kOk ? StatusCode::kInvalidArgument : code;
  va_list args;
  va_start(args, format);
  // Always terminated, never past the buffer, the same text with every C library.
  format_message(status.message_, sizeof(status.message_), format, args);
  va_end(args);
  return status;
}

}  // namespace focal
