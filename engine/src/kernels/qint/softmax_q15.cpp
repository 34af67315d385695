// The integer softmax of the attention kernels (qint_kernels.h): exp from the Q4.11 table
// (activation_s16.h) of each score less the largest, normalized by one rounded division
// per weight, so the weights are the same integers on every core.
#include "qint/activation_s16.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {

bool softmax_q15(int32_t* scores, const uint8_t* valid, size_t count) {
  bool any = false;
  int32_t largest = 0;
  for (size_t t = 0; t < count; ++t) {
    if (valid != nullptr && valid[t] == 0) continue;
    largest = !any || scores[t] > largest ? scores[t] : largest;
    any = true;
  }
  if (!any) {
    for (size_t t = 0; t < count; ++t) scores[t] = 0;
    return false;
  }
  int32_t total = 0;  // <= count * 32767, and count < 2^16 (the kernels' limit)
  for (size_t t = 0; t < count; ++t) {
    if (valid != nullptr && valid[t] == 0) {
      scores[t] = 0;
      continue;
    }
    // A difference below -2^15 (exp < 1.2e-7) is clamped by exp_s16; subtract in int64
    // so that extreme scores cannot overflow.
    const int64_t difference = int64_t(scores[t]) - largest;
    scores[t] = qint::exp_s16(difference < -65536 ? -65536 : int32_t(difference));
    total += scores[t];
  }
  // Each exp is at most 32767 and total < 2^31 (count < 2^16), so the numerator
  // (exp << 15) + total / 2 < 2^30 + 2^30 fits 32 unsigned bits: one hardware division
  // (UDIV on the Cortex-M4 and later), where a 64-bit one was a library call, with the same
  // quotient.
  const uint32_t divisor = uint32_t(total), half = divisor / 2;
  for (size_t t = 0; t < count; ++t) {
    const uint32_t weight = ((uint32_t(scores[t]) << 15) + half) / divisor;
    scores[t] = int32_t(weight > 32767 ? 32767 : weight);
  }
  return true;
}

}  // namespace kernels
}  // namespace focal
