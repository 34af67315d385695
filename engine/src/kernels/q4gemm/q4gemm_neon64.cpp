// The int4 variant of aarch64 cores without FEAT_DotProd (Cortex-A53/A57/A72): the widening
// panel kernel of q4gemm_neon_rows.hpp.
#include "q4gemm/q4gemm_driver.hpp"
#include "q4gemm/q4gemm_neon_rows.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr Q4GemmKernelTable kNeon64Q4Gemm = Q4GemmDriver<NeonWideningQ4Micro>::table("neon64");

}  // namespace

const Q4GemmKernelTable* q4gemm_neon64_kernels() { return &kNeon64Q4Gemm; }

}  // namespace kernels
}  // namespace focal
