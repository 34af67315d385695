// The AVX-512 VNNI int4 variant. A quad's 64 bytes are one zmm: its low nibbles are
// outputs 0..15 x 4 k (one int32 lane per output, 4 k per lane, as vpdpbusd multiplies
// and adds them) and its high nibbles outputs 16..31; one broadcast of the row's 4 bytes
// feeds both. vpdpbusd takes the nibbles u = q + 8 as unsigned and the row's q as signed
// bytes; the group's int32 sums less 8 x the row's group sum are exact
// (|sum| <= 128 x 15 x 127), converted to f32 and added times the f16 scales with one FMA
// per group, as the reference does.
#include <immintrin.h>

#include <cstring>

#include "q4gemm/q4gemm_driver.hpp"

namespace focal {
namespace kernels {
namespace {

// acc += the four-byte dot products of u (u8) and x (s8). The instruction in inline
// assembly, as in qgemm_avx512vnni.cpp: g++ 12 copies the accumulator before each
// _mm512_dpbusd_epi32.
inline void dot_accumulate(__m512i& acc, __m512i u, __m512i x) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(x));
}

// One row's sums: the group's int32 sums and the f32 totals, outputs 0..15 and 16..31.
// Named members (g++ 12 spills arrays of accumulators).
struct RowSums {
  __m512i lo, hi;
  __m512 f_lo, f_hi;
};

inline __m512i row_quad(const int8_t* x, size_t c) {
  int32_t bytes = 0;
  std::memcpy(&bytes, x + c * kQ4QuadK, 4);
  return _mm512_set1_epi32(bytes);
}

inline void accumulate(RowSums& s, const int8_t* x, size_t c, __m512i lo, __m512i hi) {
  const __m512i b = row_quad(x, c);
  dot_accumulate(s.lo, lo, b);
  dot_accumulate(s.hi, hi, b);
}

// f += float(sum - 8 * group sum) * scale; the int32 sums restart.
inline void fold_group(RowSums& s, int32_t group_sum, __m512 scale_lo, __m512 scale_hi) {
  const __m512i offset = _mm512_set1_epi32(int32_t(kQ4Offset) * group_sum);
  s.f_lo = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(s.lo, offset)), scale_lo, s.f_lo);
  s.f_hi = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(s.hi, offset)), scale_hi, s.f_hi);
  s.lo = _mm512_setzero_si512();
  s.hi = _mm512_setzero_si512();
}

inline void store_row(const RowSums& s, float* f) {
  _mm512_store_ps(f, s.f_lo);
  _mm512_store_ps(f + 16, s.f_hi);
}

struct Avx512VnniMicro {
  template <size_t kRows>
  static void panel_rows(const Q4GemmProblem& p, const uint8_t* panel, size_t row0, float* f) {
    const size_t k = p.rows.gemm.k, stride = p.rows.a_stride, groups = p.groups;
    const int8_t* a = reinterpret_cast<const int8_t*>(p.rows.a + row0 * stride);
    const int32_t* sums = p.group_sums + row0 * groups;
    const __m512i mask = _mm512_set1_epi8(0x0F);
    RowSums r0{}, r1{}, r2{}, r3{};
    const uint8_t* group = panel;
    for (size_t g = 0; g < groups; ++g) {
      const size_t quads = q4_group_quads(k, p.group, g);
      const int8_t* x = a + g * p.group;
      for (size_t c = 0; c < quads; ++c) {
        __builtin_prefetch(group + c * kQ4QuadBytes + kQ4PrefetchBytes);
        const __m512i v = _mm512_loadu_si512(group + c * kQ4QuadBytes);
        const __m512i lo = _mm512_and_si512(v, mask);
        const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), mask);
        accumulate(r0, x, c, lo, hi);
        if constexpr (kRows > 1) accumulate(r1, x + stride, c, lo, hi);
        if constexpr (kRows > 2) accumulate(r2, x + 2 * stride, c, lo, hi);
        if constexpr (kRows > 3) accumulate(r3, x + 3 * stride, c, lo, hi);
      }
      const __m512i halves = _mm512_loadu_si512(group + quads * kQ4QuadBytes);
      const __m512 scale_lo = _mm512_cvtph_ps(_mm512_castsi512_si256(halves));
      const __m512 scale_hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(halves, 1));
      fold_group(r0, sums[g], scale_lo, scale_hi);
      if constexpr (kRows > 1) fold_group(r1, sums[groups + g], scale_lo, scale_hi);
      if constexpr (kRows > 2) fold_group(r2, sums[2 * groups + g], scale_lo, scale_hi);
      if constexpr (kRows > 3) fold_group(r3, sums[3 * groups + g], scale_lo, scale_hi);
      group += q4_group_stride(p.group);
    }
    store_row(r0, f);
    if constexpr (kRows > 1) store_row(r1, f + kGemmPanel);
    if constexpr (kRows > 2) store_row(r2, f + 2 * kGemmPanel);
    if constexpr (kRows > 3) store_row(r3, f + 3 * kGemmPanel);
  }
};

constexpr Q4GemmKernelTable kAvx512VnniQ4Gemm = Q4GemmDriver<Avx512VnniMicro>::table("avx512vnni");

}  // namespace

const Q4GemmKernelTable* q4gemm_avx512vnni_kernels() { return &kAvx512VnniQ4Gemm; }

}  // namespace kernels
}  // namespace focal
