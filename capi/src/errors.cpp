// The C API's errors (each thread's last failure), names of codes and dtypes, and its
// own memory blocks.
#include <cstring>

#include "c_api_internal.h"
#include "focal/tensor.h"

namespace focal {
namespace capi {
namespace {

// focal_status starts with the engine's codes, in its order.
static_assert(int(FOCAL_INVALID_ARGUMENT) == int(StatusCode::kInvalidArgument), "codes");
static_assert(int(FOCAL_INVALID_MODEL) == int(StatusCode::kInvalidModel), "codes");
static_assert(int(FOCAL_UNSUPPORTED) == int(StatusCode::kUnsupported), "codes");
static_assert(int(FOCAL_OUT_OF_RANGE) == int(StatusCode::kOutOfRange), "codes");
static_assert(int(FOCAL_RESOURCE_EXHAUSTED) == int(StatusCode::kResourceExhausted), "codes");
static_assert(int(FOCAL_IO_ERROR) == int(StatusCode::kIoError), "codes");
static_assert(FOCAL_MAX_RANK == kMaxRank, "focal_shape holds every rank the engine has");
static_assert(int(FOCAL_I32) == int(DType::kI32) && int(FOCAL_BF16) == int(DType::kBF16), "dtypes");

struct LastError {
  focal_status code = FOCAL_OK;
  char message[Status::kMaxMessage] = "ok";
};

// Constant-initialized, so a thread's copy needs no constructor call. It is touched only
// when a call fails, so successful runs never reach the thread-local storage (which a
// shared library's first access per thread may allocate).
#if defined(FOCAL_C_API_SINGLE_THREAD)
LastError g_last_error;  // bare metal: one thread, and no TLS runtime
#else
thread_local LastError g_last_error;
#endif

// Whether an enum's value is one of 0..last. Through an int parameter: where enums are
// short and unsigned (arm-none-eabi), comparing the enum itself with 0 would always hold.
bool in_range(int value, int last) { return value >= 0 && value <= last; }

focal_status record(focal_status code, const char* message) {
  std::strncpy(g_last_error.message, message, sizeof(g_last_error.message) - 1);
  g_last_error.message[sizeof(g_last_error.message) - 1] = '\0';
  g_last_error.code = code;
  return code;
}

}  // namespace

focal_status fail(focal_status code, const Status& status) { return record(code, status.message()); }

focal_status fail(const Status& status) {
  if (status.ok()) return FOCAL_OK;
  return record(static_cast<focal_status>(status.code()), status.message());
}

focal_status caught(const char* function, const char* what) {
  return fail(FOCAL_INTERNAL, Status::error(StatusCode::kInvalidArgument, "%s: a C++ exception reached the C API%s%s",
                                            function, what != nullptr ? ": " : "", what != nullptr ? what : ""));
}

focal_status null_argument(const char* function, const char* parameter) {
  return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "%s: %s is NULL", function, parameter);
}

focal_status session_in_use(const char* function) {
  return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT,
                      "%s: the session is in use by another thread (a session runs on one thread at a time: "
                      "give each thread its own)",
                      function);
}

bool AlignedBlock::allocate(size_t bytes, size_t alignment) {
  if (bytes > SIZE_MAX - alignment) return false;
  raw = std::malloc(bytes + alignment);
  if (raw == nullptr) return false;
  const uintptr_t address = reinterpret_cast<uintptr_t>(raw);
  data = reinterpret_cast<void*>((address + alignment - 1) / alignment * alignment);
  return true;
}

void AlignedBlock::release() {
  std::free(raw);
  raw = data = nullptr;
}

}  // namespace capi
}  // namespace focal

extern "C" {

const char* focal_status_name(focal_status status) noexcept {
  switch (status) {
    case FOCAL_NOT_FOUND:
      return "not found";
    case FOCAL_INTERNAL:
      return "internal error";
    default:
      break;
  }
  if (!focal::capi::in_range(status, FOCAL_IO_ERROR)) return "unknown";
  return focal::status_code_name(static_cast<focal::StatusCode>(status));
}

focal_status focal_last_error(void) noexcept { return focal::capi::g_last_error.code; }

const char* focal_last_error_message(void) noexcept { return focal::capi::g_last_error.message; }

uint32_t focal_format_version(void) noexcept { return focal::kFormatVersion; }

size_t focal_dtype_size(focal_dtype dtype) noexcept {
  if (!focal::capi::in_range(dtype, FOCAL_I32)) return 0;
  return focal::dtype_size(static_cast<focal::DType>(dtype));
}

const char* focal_dtype_name(focal_dtype dtype) noexcept {
  if (!focal::capi::in_range(dtype, FOCAL_I32)) return "unknown";
  return focal::dtype_name(static_cast<focal::DType>(dtype));
}

}  // extern "C"
