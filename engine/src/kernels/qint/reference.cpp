// The plain-C twin of the static-int8 dot products: one multiply-add per weight, in k
// order, into an int32 that starts at the bias (dot_rows) or at the sum given
// (dot_tokens). Every other variant must equal it bit for bit; cores without a faster
// variant run it (Helium's rows_tokens is checked through qgemm_s8 against qgemv_s8).
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

void dot_tokens_scalar(const uint32_t* packed, const int8_t* w, size_t k, int32_t* sums) {
  for (size_t t = 0; t < kQIntTokens; ++t) {
    int32_t sum = sums[t];
    for (size_t i = 0; i < k; ++i) sum += packed_token_input(packed, t, i) * int32_t(w[i]);
    sums[t] = sum;
  }
}

constexpr QIntKernelTable kScalarQInt{"scalar", dot_rows_scalar, dot_tokens_scalar, nullptr};

}  // namespace

const QIntKernelTable& qint_reference_kernels() { return kScalarQInt; }

}  // namespace kernels
}  // namespace focal
