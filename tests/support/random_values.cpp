#include "support/random_values.h"

namespace focal {
namespace testing {

std::vector<float> random_values(size_t count, uint32_t seed, float lo, float hi) {
  std::vector<float> values(count);
  uint32_t state = seed * 2654435761u + 12345u;
  for (float& v : values) {
    state = state * 1664525u + 1013904223u;
    v = lo + (hi - lo) * float(state >> 8) / float(1u << 24);
  }
  return values;
}

}  // namespace testing
}  // namespace focal
