// The static-int8 matrix-vector products: blocks of kQIntRows outputs through the
// build's dot_rows, each sum requantized as it comes (no int32 buffer of n).
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {
namespace {

// Calls store(j, requantized sum of output j) for every output, in order.
template <class Store>
void for_each_requantized(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x,
                          Store store) {
  int32_t sums[kQIntRows];
  for (size_t j0 = 0; j0 < p.n; j0 += kQIntRows) {
    const size_t rows = p.n - j0 < kQIntRows ? p.n - j0 : kQIntRows;
    kernels.dot_rows(x, p.w + j0 * p.w_stride, p.w_stride, p.k, rows,
                     p.bias != nullptr ? p.bias + j0 : nullptr, sums);
    for (size_t r = 0; r < rows; ++r) {
      const size_t j = j0 + r;
      store(j, qint::requantize(sums[r], p.multiplier[j], p.shift[j]));
    }
  }
}

}  // namespace

void qgemv_s8(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x, int8_t* y) {
  for_each_requantized(kernels, p, x, [&](size_t j, int32_t v) {
    y[j] = int8_t(qint::clamp(v + p.output_zero_point, p.output_min, p.output_max));
  });
}

void qgemv_s16_accumulate(const QIntKernelTable& kernels, const QGemvParams& p,
                          const int8_t* x, int16_t* y) {
  for_each_requantized(kernels, p, x, [&](size_t j, int32_t v) {
    // v is at most 2^31 / 2 in magnitude after a right shift; clamp before adding so the
    // sum cannot overflow int32.
    y[j] = qint::saturate_int16(int32_t(y[j]) + qint::clamp(v, -65536, 65536));
  });
}

}  // namespace kernels
}  // namespace focal
