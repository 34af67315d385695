// The installed converter library from outside the repository: the conversion pipeline
// refuses a checkpoint that does not exist with a message naming it, and the default
// self-test tolerance is wider with int8 activations than with f32 ones (convert.h).
#include <cstdio>
#include <cstring>

#include "focal/converter/convert.h"

int main() {
  focal::convert::ConvertOptions options;
  options.preset = "auto";
  options.weights = {"no_such_checkpoint.safetensors"};
  auto converted = focal::convert::convert_checkpoint(options);
  if (converted.ok() || std::strstr(converted.status().message(), "no_such_checkpoint") == nullptr) {
    std::printf("a missing checkpoint was not refused by name: %s\n",
                converted.ok() ? "converted" : converted.status().message());
    return 1;
  }
  std::printf("refused: %s\n", converted.status().message());
  const float f32 = focal::convert::computed_self_test_tolerance(focal::DType::kF32);
  const float int8 = focal::convert::computed_self_test_tolerance(focal::DType::kI8, true);
  std::printf("self-test tolerance f32 %g, int8 activations %g\n", static_cast<double>(f32), static_cast<double>(int8));
  return f32 > 0.0f && int8 > f32 ? 0 : 1;
}
