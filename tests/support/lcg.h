// A tiny linear congruential generator for the integer kernel tests: the same numbers on
// every core (host, qemu-user and the Cortex-M test images), with no <random> in
// firmware. Numerical Recipes' constants.
#pragma once

#include <cstdint>

namespace focal {
namespace testing {

struct Lcg {
  uint32_t state;
  uint32_t next() { return state = state * 1664525u + 1013904223u; }
  int8_t s8() { return int8_t(next() >> 24); }
  int32_t in_range(int32_t lo, int32_t hi) { return lo + int32_t((next() >> 8) % uint32_t(hi - lo + 1)); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 8) / double(1 << 24); }
};

}  // namespace testing
}  // namespace focal
