#include "cli/command_line.h"

#include "focal/gemm.h"

namespace focal {
namespace cli {

const char* focal_version() { return FOCAL_VERSION; }

void print_version() {
  // FOCAL_VERSION: the project's version (CMakeLists.txt); the kernels this machine runs.
  std::printf("focal %s (Apache-2.0)\nkernels here: f32 %s, int8 %s, int4 %s\n", FOCAL_VERSION, gemm_isa(),
              gemm_int8_isa(), gemm_int4_isa());
}

int report_failure(const char* command, const Status& status) {
  std::fprintf(stderr, "focal %s: %s\n", command, terminal_text(status.message()).c_str());
  return 1;
}

bool Arguments::flag(const char* name) {
  if (!more() || std::strcmp(current(), name) != 0) return false;
  ++index_;
  return true;
}

bool Arguments::text(const char* name, const char** value) {
  if (!more() || std::strcmp(current(), name) != 0) return false;
  if (index_ + 1 >= argc_) {
    status_ = Status::error(StatusCode::kInvalidArgument, "option '%s' needs a value", name);
    return true;
  }
  *value = argv_[index_ + 1];
  index_ += 2;
  return true;
}

bool Arguments::text(const char* name, std::string* value) {
  const char* text_value = nullptr;
  if (!text(name, &text_value)) return false;
  if (text_value != nullptr) *value = text_value;
  return true;
}

bool Arguments::real(const char* name, double min, double max, double* value, LowerBound lower) {
  const char* text_value = nullptr;
  if (!text(name, &text_value)) return false;
  if (text_value == nullptr) return true;  // the missing value is recorded
  const Result<double> parsed = parse_real(name, text_value, min, max, lower);
  if (parsed.ok()) *value = parsed.value();
  else status_ = parsed.status();
  return true;
}

bool Arguments::real(const char* name, double min, double max, float* value, LowerBound lower) {
  double wide = *value;
  const bool matched = real(name, min, max, &wide, lower);
  if (matched && status_.ok()) *value = static_cast<float>(wide);
  return matched;
}

bool Arguments::positional(const char** value) {
  if (!more() || current()[0] == '-' || *value != nullptr) return false;
  *value = current();
  ++index_;
  return true;
}

void Arguments::refuse_current() {
  if (!more()) return;
  const std::string shown = printable(current());
  status_ = current()[0] == '-'
                ? Status::error(StatusCode::kInvalidArgument, "unknown option '%s'", shown.c_str())
                : Status::error(StatusCode::kInvalidArgument, "unexpected argument '%s'", shown.c_str());
}

Status missing_argument(const char* what) {
  return Status::error(StatusCode::kInvalidArgument, "%s is required", what);
}

}  // namespace cli
}  // namespace focal
