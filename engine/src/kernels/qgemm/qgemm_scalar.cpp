// The portable int8 GEMM variant: plain integer loops over the int8-dot layout (every
// target has it; Cortex-M4/M7 run nothing else). Sums are exact int32.
#include "qgemm/qgemm_driver.hpp"

namespace focal {
namespace kernels {
namespace {

struct ScalarMicro {
  static constexpr size_t kTileRows = 4;
  static constexpr uint8_t kOffset = 0;

  static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
                   size_t groups, int32_t* c) {
    for (size_t r = 0; r < rows; ++r) {
      const int8_t* x = reinterpret_cast<const int8_t*>(a + r * a_stride);
      int32_t* cr = c + r * kGemmPanel;
      for (size_t j = 0; j < kGemmPanel; ++j) cr[j] = 0;
      for (size_t g = 0; g < groups; ++g) {
        const int8_t* xg = x + g * kQGemmGroup;
        const int8_t* wg = panel + g * kQGemmPanelGroupBytes;
        for (size_t j = 0; j < kGemmPanel; ++j) {
          int32_t sum = 0;
          for (size_t b = 0; b < kQGemmGroup; ++b) sum += int32_t(xg[b]) * int32_t(wg[j * kQGemmGroup + b]);
          cr[j] += sum;
        }
      }
    }
  }

  static void quantize_rows(const QGemmProblem& p, size_t row_begin, size_t row_end) {
    quantize_rows_plain<kOffset>(p, row_begin, row_end);
  }
};

constexpr QGemmKernelTable kScalarQGemm = QGemmDriver<ScalarMicro>::table("scalar");

}  // namespace

const QGemmKernelTable* qgemm_scalar_kernels() { return &kScalarQGemm; }

}  // namespace kernels
}  // namespace focal
