// What every verifier check shares: its error and the buffer rule.
#include <cstdarg>

#include "focal/model.h"
#include "load/verify_checks.h"
#include "support/format_message.h"

namespace focal {
namespace verify {

Status invalid(const char* format, ...) {
  char message[Status::kMaxMessage];
  va_list args;
  va_start(args, format);
  format_message(message, sizeof(message), format, args);
  va_end(args);
  return Status::error(StatusCode::kInvalidModel, "%s", message);
}

Status check_buffer(const FileLayout& file, const fb::BufferRef* ref, uint64_t expected,
                    const char* what, const char* name) {
  if (ref == nullptr) return invalid("%s '%s' has no data", what, name);
  if (ref->offset() % kBufferAlignment != 0) {
    return invalid("%s '%s': data offset %llu is not a multiple of %zu", what, name,
                   static_cast<unsigned long long>(ref->offset()), kBufferAlignment);
  }
  if (ref->size() != expected) {
    return invalid("%s '%s': data is %llu bytes, its shape and dtype need %llu", what, name,
                   static_cast<unsigned long long>(ref->size()),
                   static_cast<unsigned long long>(expected));
  }
  const uint64_t available = file.size > file.data_offset ? file.size - file.data_offset : 0;
  if (ref->offset() > available || ref->size() > available - ref->offset()) {
    return invalid("%s '%s': data [%llu, +%llu) lies outside the file's %llu data bytes", what,
                   name, static_cast<unsigned long long>(ref->offset()),
                   static_cast<unsigned long long>(ref->size()),
                   static_cast<unsigned long long>(available));
  }
  return Status();
}

}  // namespace verify
}  // namespace focal
