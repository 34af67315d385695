// The plain-C twin of the static-int8 dot products: one multiply-add per weight, in k
// order, into an int32 that starts at the bias. Every other variant must equal it bit
// for bit; cores without a faster variant run it.
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {
namespace {

void dot_rows_scalar(const int8_t* x, const int8_t* w, size_t w_stride, size_t k, size_t rows,
                     const int32_t* bias, int32_t* sums) {
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* row = w + r * w_stride;
    int32_t sum = bias != nullptr ? bias[r] : 0;
    for (size_t i = 0; i < k; ++i) sum += int32_t(x[i]) * int32_t(row[i]);
    sums[r] = sum;
  }
}

constexpr QIntKernelTable kScalarQInt{"scalar", dot_rows_scalar};

}  // namespace

const QIntKernelTable& qint_reference_kernels() { return kScalarQInt; }

}  // namespace kernels
}  // namespace focal
