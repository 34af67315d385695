// The int8 GEMM variant of aarch64 cores with neither FEAT_DotProd nor FEAT_I8MM
// (Cortex-A53/A57/A72, the baseline every aarch64 core has): the widening products of
// qgemm_neon_widening.hpp, 3 rows per tile (12 q-register accumulators; with 4 rows and
// 16 GCC 12 spills a product register in the loop), and the aarch64 row quantization.
#include "qgemm/qgemm_driver.hpp"
#include "qgemm/qgemm_neon64_quantize.hpp"
#include "qgemm/qgemm_neon_widening.hpp"

namespace focal {
namespace kernels {
namespace {

struct Neon64Micro : WideningMicro<3>, Neon64RowQuantization {};

constexpr QGemmKernelTable kNeon64QGemm = QGemmDriver<Neon64Micro>::table("neon64");

}  // namespace

const QGemmKernelTable* qgemm_neon64_kernels() { return &kNeon64QGemm; }

}  // namespace kernels
}  // namespace focal
