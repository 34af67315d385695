// The SSE2 int4 variant (x86 without AVX2). A quad's 64 bytes are four xmm, each 4 outputs
// of 4 k (low nibbles: outputs 4v..4v+3 of the first half, high nibbles the same of the
// second). SSE2 has no unsigned x signed byte product, so the nibbles u = q + 8 (0..15)
// are widened to int16 and pmaddwd multiplies them by the row's 4 q (sign-extended,
// repeated) and adds pairs: two int32 per output, added into one per output with a
// shuffle. Sums are exact; the group's offset and f16 scale are then folded per output
// with std::fmaf, the reference's rounding (SSE2 has no FMA instruction).
#include <emmintrin.h>

#include <cmath>
#include <cstring>

#include "q4gemm/q4gemm_driver.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

// [a0 a1 b0 b1], [c0 c1 d0 d1] -> [a0+a1, b0+b1, c0+c1, d0+d1] (int32 lanes).
inline __m128i add_pairs(__m128i ab, __m128i cd) {
  const __m128 even = _mm_shuffle_ps(_mm_castsi128_ps(ab), _mm_castsi128_ps(cd), _MM_SHUFFLE(2, 0, 2, 0));
  const __m128 odd = _mm_shuffle_ps(_mm_castsi128_ps(ab), _mm_castsi128_ps(cd), _MM_SHUFFLE(3, 1, 3, 1));
  return _mm_add_epi32(_mm_castps_si128(even), _mm_castps_si128(odd));
}

// The int32 sums of 4 outputs: nibbles u (16 bytes, 0..15 each) times x (8 int16: the 4 q
// of the quad, twice).
inline __m128i dot4(__m128i u, __m128i x) {
  const __m128i zero = _mm_setzero_si128();
  return add_pairs(_mm_madd_epi16(_mm_unpacklo_epi8(u, zero), x),
                   _mm_madd_epi16(_mm_unpackhi_epi8(u, zero), x));
}

// f[0..31] of one row over the whole panel.
void row_pass(const Q4GemmProblem& p, const uint8_t* panel, size_t row, float* f) {
  const size_t k = p.rows.gemm.k;
  const int8_t* a = reinterpret_cast<const int8_t*>(p.rows.a + row * p.rows.a_stride);
  const int32_t* group_sums = p.group_sums + row * p.groups;
  const __m128i mask = _mm_set1_epi8(0x0F);
  for (size_t j = 0; j < kGemmPanel; ++j) f[j] = 0.0f;
  const uint8_t* group = panel;
  for (size_t g = 0; g < p.groups; ++g) {
    const size_t quads = q4_group_quads(k, p.group, g);
    const int8_t* x = a + g * p.group;
    __m128i acc[8];
    for (__m128i& s : acc) s = _mm_setzero_si128();
    for (size_t c = 0; c < quads; ++c) {
      const int8_t* q = x + c * kQ4QuadK;
      const __m128i xq = _mm_setr_epi16(q[0], q[1], q[2], q[3], q[0], q[1], q[2], q[3]);
      const uint8_t* quad = group + c * kQ4QuadBytes;
      __builtin_prefetch(quad + kQ4PrefetchBytes);
      for (size_t v = 0; v < 4; ++v) {
        const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(quad + 16 * v));
        acc[v] = _mm_add_epi32(acc[v], dot4(_mm_and_si128(w, mask), xq));
        acc[4 + v] = _mm_add_epi32(acc[4 + v], dot4(_mm_and_si128(_mm_srli_epi16(w, 4), mask), xq));
      }
    }
    const int32_t offset = int32_t(kQ4Offset) * group_sums[g];
    const uint8_t* scales = group + quads * kQ4QuadBytes;
    alignas(16) int32_t sums[kGemmPanel];
    for (size_t v = 0; v < 8; ++v) _mm_store_si128(reinterpret_cast<__m128i*>(sums + 4 * v), acc[v]);
    for (size_t j = 0; j < kGemmPanel; ++j) {
      uint16_t h = 0;
      std::memcpy(&h, scales + 2 * j, 2);
      f[j] = std::fmaf(float(sums[j] - offset), simd::half_to_float(h), f[j]);
    }
    group += q4_group_stride(p.group);
  }
}

constexpr Q4GemmKernelTable kSse2Q4Gemm = Q4GemmDriver<RowByRowMicro<row_pass>>::table("sse2");

}  // namespace

const Q4GemmKernelTable* q4gemm_sse2_kernels() { return &kSse2Q4Gemm; }

}  // namespace kernels
}  // namespace focal
