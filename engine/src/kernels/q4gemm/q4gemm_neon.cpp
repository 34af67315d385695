// The int4 variant of armv7 NEON (the armhf build; VFPv4 for vfmaq_f32): the widening
// panel kernel of q4gemm_neon_rows.hpp.
#include "q4gemm/q4gemm_driver.hpp"
#include "q4gemm/q4gemm_neon_rows.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr Q4GemmKernelTable kNeonQ4Gemm = Q4GemmDriver<NeonWideningQ4Micro>::table("neon");

}  // namespace

const Q4GemmKernelTable* q4gemm_neon_kernels() { return &kNeonQ4Gemm; }

}  // namespace kernels
}  // namespace focal
