// Integer additive attention pooling (qint_kernels.h): keys through the int8 GEMV and the
// int16 tanh one row at a time (only one row's keys are ever held), int32 scores,
// a softmax in Q0.15 from the exp table, and the weighted sum of the rows requantized.
#include "qint/activation_s16.h"
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {
namespace {

// v . tanh(W x + b) for one row, requantized into Q4.11.
int32_t score_row(const QIntKernelTable& kernels, const QAttentionPoolParams& p, const int8_t* x,
                  int16_t* key) {
  for (size_t a = 0; a < p.units; ++a) key[a] = 0;
  qgemv_s16_accumulate(kernels, p.projection, x, key);
  int32_t sum = 0;  // |sum| <= units * 128 * 32768: units < 512 keeps it in int32
  for (size_t a = 0; a < p.units; ++a) sum += int32_t(p.v[a]) * int32_t(qint::tanh_s16(key[a]));
  return qint::requantize(sum, p.score_multiplier, p.score_shift);
}

}  // namespace

void qattention_pool(const QIntKernelTable& kernels, const QAttentionPoolParams& p,
                     const int8_t* x, size_t valid, int16_t* key_scratch, int32_t* score_scratch,
                     int16_t* weights_q15, int8_t* y) {
  if (valid > p.steps) valid = p.steps;
  for (size_t t = 0; t < valid; ++t) {
    score_scratch[t] = score_row(kernels, p, x + t * p.features, key_scratch);
  }
  if (valid > 0) softmax_q15(score_scratch, nullptr, valid);
  if (weights_q15 != nullptr) {
    for (size_t t = 0; t < p.steps; ++t) weights_q15[t] = t < valid ? int16_t(score_scratch[t]) : int16_t(0);
  }
  for (size_t d = 0; d < p.features; ++d) {
    int32_t sum = 0;
    for (size_t t = 0; t < valid; ++t) {
      sum += score_scratch[t] * (int32_t(x[t * p.features + d]) - p.x_zero_point);
    }
    const int32_t q = valid > 0 ? qint::requantize(sum, p.output_multiplier, p.output_shift) : 0;
    y[d] = int8_t(qint::clamp(q + p.output_zero_point, -128, 127));
  }
}

}  // namespace kernels
}  // namespace focal
