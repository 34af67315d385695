// Deterministic test inputs, the same on every target (Linux and Cortex-M firmware).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace focal {
namespace testing {

// Uniform values in [lo, hi) from a 32-bit LCG.
std::vector<float> random_values(size_t count, uint32_t seed, float lo = -0.5f, float hi = 0.5f);

}  // namespace testing
}  // namespace focal
