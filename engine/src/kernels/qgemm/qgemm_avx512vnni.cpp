// The AVX-512 VNNI int8 GEMM variant: vpdpbusd multiplies unsigned bytes by signed
// bytes and adds each four consecutive products into an int32 lane. A 64-byte load of a
// panel's group is 8 outputs x 8 k; a row's 8 bytes are broadcast to every 64-bit lane,
// so lane 2j accumulates output j's products over k 0..3 of each group and lane 2j + 1
// over k 4..7, and the pairs are added once per tile. Rows are stored as q + 128 (u8);
// the driver subtracts 128 * column sum. Exact: |sum| <= 2^16 * 255 * 128 < 2^31.
#include <immintrin.h>

#include <cstring>

#include "qgemm/qgemm_avx512_store.hpp"
#include "qgemm/qgemm_driver.hpp"

namespace focal {
namespace kernels {
namespace {

// Register tile: 6 rows x 32 outputs are 24 zmm accumulators; with the panel group's 4
// zmm of weights and the row broadcasts they fill the 32 registers without a spill.
constexpr size_t kVnniTileRows = 6;
constexpr uint8_t kVnniOffset = 128;

// A row's group g (8 bytes) in every 64-bit lane.
inline __m512i broadcast_group(const uint8_t* row, size_t g) {
  uint64_t bytes = 0;
  std::memcpy(&bytes, row + g * kQGemmGroup, sizeof bytes);
  return _mm512_set1_epi64(static_cast<long long>(bytes));
}

// c[0..15] = the sums of 16 outputs from their half-group lanes: lo holds outputs 0..7
// and hi outputs 8..15, each as (k 0..3, k 4..7) lane pairs.
inline void store_pair_sums(__m512i lo, __m512i hi, int32_t* c) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  const __m512i sums = _mm512_add_epi32(_mm512_permutex2var_epi32(lo, even, hi),
                                        _mm512_permutex2var_epi32(lo, odd, hi));
  _mm512_storeu_si512(c, sums);
}

// One row's accumulators: outputs 0..7, 8..15, 16..23, 24..31 of the panel, as lane
// pairs. Named members, not an array: g++ 12 keeps arrays of accumulators on the stack
// (a spill per vpdpbusd), named locals in registers (checked in the assembly).
struct RowSums {
  __m512i s0, s1, s2, s3;
};

// A panel group: 32 outputs x 8 k in 4 zmm.
struct PanelGroup {
  __m512i w0, w1, w2, w3;
};

inline PanelGroup load_group(const int8_t* panel, size_t g) {
  const int8_t* wg = panel + g * kQGemmPanelGroupBytes;
  return {_mm512_loadu_si512(wg), _mm512_loadu_si512(wg + 64), _mm512_loadu_si512(wg + 128),
          _mm512_loadu_si512(wg + 192)};
}

// acc += the four-byte dot products of x (u8) and w (s8), in place. g++ 12 compiles
// _mm512_dpbusd_epi32 into a register copy of the accumulator before every vpdpbusd
// (and spills them at 6 rows); the instruction itself in inline assembly, with the
// accumulator as a read-write operand, gives the plain loop of vpdpbusd.
inline void dot_accumulate(__m512i& acc, __m512i x, __m512i w) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
}

inline void accumulate(RowSums& acc, const uint8_t* row, size_t g, const PanelGroup& w) {
  const __m512i x = broadcast_group(row, g);
  dot_accumulate(acc.s0, x, w.w0);
  dot_accumulate(acc.s1, x, w.w1);
  dot_accumulate(acc.s2, x, w.w2);
  dot_accumulate(acc.s3, x, w.w3);
}

inline void store_row(const RowSums& acc, int32_t* c) {
  store_pair_sums(acc.s0, acc.s1, c);
  store_pair_sums(acc.s2, acc.s3, c + 16);
}

// The sums of kRows (1..6) rows over every group; the rows past kRows are never touched.
template <size_t kRows>
void tile_rows(const uint8_t* a, size_t s, const int8_t* panel, size_t groups, int32_t* c) {
  static_assert(kRows >= 1 && kRows <= kVnniTileRows, "rows of a tile");
  RowSums r0{}, r1{}, r2{}, r3{}, r4{}, r5{};
  for (size_t g = 0; g < groups; ++g) {
    const PanelGroup w = load_group(panel, g);
    accumulate(r0, a, g, w);
    if constexpr (kRows > 1) accumulate(r1, a + s, g, w);
    if constexpr (kRows > 2) accumulate(r2, a + 2 * s, g, w);
    if constexpr (kRows > 3) accumulate(r3, a + 3 * s, g, w);
    if constexpr (kRows > 4) accumulate(r4, a + 4 * s, g, w);
    if constexpr (kRows > 5) accumulate(r5, a + 5 * s, g, w);
  }
  store_row(r0, c);
  if constexpr (kRows > 1) store_row(r1, c + kGemmPanel);
  if constexpr (kRows > 2) store_row(r2, c + 2 * kGemmPanel);
  if constexpr (kRows > 3) store_row(r3, c + 3 * kGemmPanel);
  if constexpr (kRows > 4) store_row(r4, c + 4 * kGemmPanel);
  if constexpr (kRows > 5) store_row(r5, c + 5 * kGemmPanel);
}

// ---- Row quantization (the bits of quantize_row_reference) -----------------------------

// Lanes of a row's last, partial block of 16 floats.
inline __mmask16 tail_mask(size_t count) { return static_cast<__mmask16>((1u << count) - 1u); }

// max |x[i]| over the row, and whether every x[i] is finite (|x| < inf is false for
// infinities and NaN, which never win a max here: the row is refused as a whole).
inline float row_amax(const float* x, size_t k, bool* finite) {
  const __m512 inf = _mm512_set1_ps(__builtin_inff());
  __m512 amax = _mm512_setzero_ps();
  __mmask16 bad = 0;
  size_t i = 0;
  for (; i + 16 <= k; i += 16) {
    const __m512 v = _mm512_abs_ps(_mm512_loadu_ps(x + i));
    amax = _mm512_max_ps(amax, v);
    bad = static_cast<__mmask16>(bad | _mm512_cmp_ps_mask(v, inf, _CMP_NLT_UQ));
  }
  if (i < k) {
    const __m512 v = _mm512_abs_ps(_mm512_maskz_loadu_ps(tail_mask(k - i), x + i));
    amax = _mm512_max_ps(amax, v);
    bad = static_cast<__mmask16>(bad | _mm512_cmp_ps_mask(v, inf, _CMP_NLT_UQ));
  }
  *finite = bad == 0;
  return _mm512_reduce_max_ps(amax);
}

// 16 values: rint(x * inv) (vcvtps2dq rounds to nearest even in the default MXCSR),
// clamped to [-127, 127], plus the offset (1..255 fits a byte; vpmovdb keeps the low byte).
inline __m512i quantize16(__m512 x, __m512 inv) {
  __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(x, inv));
  q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(-127)), _mm512_set1_epi32(127));
  return _mm512_add_epi32(q, _mm512_set1_epi32(kVnniOffset));
}

void quantize_values(const float* x, size_t k, float inv, uint8_t* q) {
  const __m512 vinv = _mm512_set1_ps(inv);
  size_t i = 0;
  for (; i + 16 <= k; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i),
                     _mm512_cvtepi32_epi8(quantize16(_mm512_loadu_ps(x + i), vinv)));
  }
  if (i < k) {
    const __mmask16 mask = tail_mask(k - i);
    _mm512_mask_cvtepi32_storeu_epi8(q + i, mask, quantize16(_mm512_maskz_loadu_ps(mask, x + i), vinv));
  }
}

struct Avx512VnniMicro {
  static constexpr size_t kTileRows = kVnniTileRows;
  static constexpr uint8_t kOffset = kVnniOffset;

  static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
                   size_t groups, int32_t* c) {
    switch (rows) {
      case 1: return tile_rows<1>(a, a_stride, panel, groups, c);
      case 2: return tile_rows<2>(a, a_stride, panel, groups, c);
      case 3: return tile_rows<3>(a, a_stride, panel, groups, c);
      case 4: return tile_rows<4>(a, a_stride, panel, groups, c);
      case 5: return tile_rows<5>(a, a_stride, panel, groups, c);
      default: return tile_rows<6>(a, a_stride, panel, groups, c);
    }
  }

  static void store_output_row(const int32_t* c, const int32_t* sums, int32_t offset, float scale, float* y,
                        size_t cols) {
    store_row_avx512(c, sums, offset, scale, y, cols);
  }

  static void quantize_rows(const QGemmProblem& p, size_t row_begin, size_t row_end) {
    const size_t k = p.gemm.k;
    for (size_t r = row_begin; r < row_end; ++r) {
      const float* x = p.gemm.x + r * p.gemm.x_stride;
      uint8_t* q = p.a + r * p.a_stride;
      bool finite = true;
      const float amax = row_amax(x, k, &finite);
      size_t filled = 0;  // bytes written with values; the rest are q = 0
      if (finite && amax > 0.0f) {
        quantize_values(x, k, 127.0f / amax, q);
        filled = k;
        p.a_scales[r] = amax / 127.0f;
      } else {
        p.a_scales[r] = finite ? 0.0f : __builtin_nanf("");
      }
      std::memset(q + filled, kOffset, p.a_stride - filled);
    }
  }
};

constexpr QGemmKernelTable kAvx512VnniQGemm = QGemmDriver<Avx512VnniMicro>::table("avx512vnni");

}  // namespace

const QGemmKernelTable* qgemm_avx512vnni_kernels() { return &kAvx512VnniQGemm; }

}  // namespace kernels
}  // namespace focal
