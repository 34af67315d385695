// The portable int4 GEMM variant: plain integer loops over the packed nibbles, a quad
// (4 k of 32 outputs) at a time. Sums are exact int32; the scales are folded in with fmaf
// in the reference's order, so its bits are the reference's.
#include <cmath>
#include <cstring>

#include "q4gemm/q4gemm_driver.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

struct ScalarMicro {
  template <size_t kRows>
  static void panel_rows(const Q4GemmProblem& p, const uint8_t* panel, size_t row0, float* f) {
    const size_t k = p.rows.gemm.k;
    for (size_t i = 0; i < kRows * kGemmPanel; ++i) f[i] = 0.0f;
    const uint8_t* group = panel;
    for (size_t g = 0; g < p.groups; ++g) {
      const size_t quads = q4_group_quads(k, p.group, g);
      const uint8_t* scales = group + quads * kQ4QuadBytes;
      for (size_t r = 0; r < kRows; ++r) {
        const int8_t* x = reinterpret_cast<const int8_t*>(p.rows.a + (row0 + r) * p.rows.a_stride) + g * p.group;
        int32_t sums[kGemmPanel] = {};
        for (size_t c = 0; c < quads; ++c) {
          const uint8_t* quad = group + c * kQ4QuadBytes;
          for (size_t b = 0; b < kQ4QuadBytes; ++b) {
            const int8_t a = x[c * kQ4QuadK + b % kQ4QuadK];  // promoted in the products
            sums[b / kQ4QuadK] += a * int32_t(quad[b] & 0x0F);
            sums[kGemmPanel / 2 + b / kQ4QuadK] += a * int32_t(quad[b] >> 4);
          }
        }
        const int32_t offset = int32_t(kQ4Offset) * p.group_sums[(row0 + r) * p.groups + g];
        for (size_t j = 0; j < kGemmPanel; ++j) {
          uint16_t h = 0;
          std::memcpy(&h, scales + 2 * j, 2);
          f[r * kGemmPanel + j] = std::fmaf(float(sums[j] - offset), simd::half_to_float(h), f[r * kGemmPanel + j]);
        }
      }
      group += q4_group_stride(p.group);
    }
  }
};

constexpr Q4GemmKernelTable kScalarQ4Gemm = Q4GemmDriver<ScalarMicro>::table("scalar");

}  // namespace

const Q4GemmKernelTable* q4gemm_scalar_kernels() { return &kScalarQ4Gemm; }

}  // namespace kernels
}  // namespace focal
