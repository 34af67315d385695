// The vpdpbusd loop (AVX-512 VNNI, u8 x s8 -> s32, 64 multiply-adds per zmm instruction);
// compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni, called only on a CPU
// with AVX512_VNNI. 16 named accumulators (g++ 12 spills arrays of them: shared notes),
// enough to cover the instruction's latency times its throughput; `objdump -d` shows
// the loop as vpdpbusd on registers only.
#include <immintrin.h>

#include "int8_dot_kernels.h"

#define FOCAL_BENCH_ACC16(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define FOCAL_BENCH_DECLARE(i) __m512i a##i = _mm512_set1_epi32(seed + (i));
#define FOCAL_BENCH_STEP(i) a##i = _mm512_dpbusd_epi32(a##i, u, s);
#define FOCAL_BENCH_PLUS(i) total = _mm512_add_epi32(total, a##i);

namespace focal_bench {
namespace detail {
namespace {

// The operands come from the seed, so the compiler cannot fold the products; the sums
// wrap (the instruction's own arithmetic), which is harmless here.
int32_t vnni_loop(size_t iterations, int32_t seed) {
  const __m512i u = _mm512_set1_epi8(static_cast<char>(1 + (seed & 3)));
  const __m512i s = _mm512_set1_epi8(static_cast<char>(-1 - (seed & 3)));
  FOCAL_BENCH_ACC16(FOCAL_BENCH_DECLARE)
  for (size_t it = 0; it < iterations; ++it) {
    FOCAL_BENCH_ACC16(FOCAL_BENCH_STEP)
  }
  __m512i total = _mm512_setzero_si512();
  FOCAL_BENCH_ACC16(FOCAL_BENCH_PLUS)
  // Through memory: GCC 12's _mm512_reduce_add_epi32 trips -Wuninitialized in its header.
  alignas(64) uint32_t lanes[16];
  _mm512_store_si512(lanes, total);
  uint32_t sum = 0;
  for (uint32_t lane : lanes) sum += lane;
  return static_cast<int32_t>(sum);
}

}  // namespace

const Int8DotKernels* int8_dot_kernels_avx512vnni() {
  static const Int8DotKernels kernels = {"avx512vnni", 16 * 64 * 2, &vnni_loop};
  return &kernels;
}

}  // namespace detail
}  // namespace focal_bench
