// Internal to machine_peak, included only by the per-instruction-set translation units
// (machine_peak_<isa>.cpp), each compiled with its own flags. Everything here has
// internal linkage (anonymous namespace) and every xsimd call it makes is templated on
// the architecture, so no function built with one set of flags can be merged by the
// linker with a function of the same name built with another.
//
// The FMA loop keeps its accumulators in named variables: g++ 12 spills an array of
// vector accumulators (shared/NOTES.md). `objdump -d` of the object must show the loop
// as FMAs on registers only.
#pragma once

#include <cstddef>
#include <xsimd/xsimd.hpp>

#include "peak_kernels.h"

#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)

#define FOCAL_BENCH_ACC12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define FOCAL_BENCH_ACC16(X) FOCAL_BENCH_ACC12(X) X(12) X(13) X(14) X(15)

#define FOCAL_BENCH_DECLARE(i) B a##i(seed + 0.0625f * float(i));
// x86 FMA encodings can overwrite any operand: chains of a = a * m + c. NEON's fmla
// overwrites the addend only, so there each chain is the addend: a = m * c + a (an
// explicit fused op, which the compiler may not split to hoist m * c). SSE2 has no FMA
// (xsimd::fma is a multiply and an add) and must use the first form, or the invariant
// product would be hoisted out of the loop.
#define FOCAL_BENCH_STEP(i)        \
  if constexpr (kAddendChains) {   \
    a##i = xsimd::fma(m, c, a##i); \
  } else {                         \
    a##i = xsimd::fma(a##i, m, c); \
  }
#define FOCAL_BENCH_PLUS(i) +a##i

// a = a * m + c with m < 1 converges to c / (1 - m): no overflow, no denormals;
// a = m * c + a grows by about 1e-4 per iteration: no overflow either.
#define FOCAL_BENCH_FMA_LOOP(ACC)              \
  using B = xsimd::batch<float, Arch>;         \
  const B m(0.999f);                           \
  const B c(0.0001f);                          \
  ACC(FOCAL_BENCH_DECLARE)                     \
  for (size_t it = 0; it < iterations; ++it) { \
    ACC(FOCAL_BENCH_STEP)                      \
  }                                            \
  return lane_sum<Arch>(B(0.0f) ACC(FOCAL_BENCH_PLUS));

namespace {

// Horizontal sum through memory: xsimd::hadd of a wide batch may call the narrower
// architecture's hadd, which would be a function shared with another translation unit.
template <class Arch>
float lane_sum(const xsimd::batch<float, Arch>& v) {
  alignas(64) float lanes[xsimd::batch<float, Arch>::size];
  v.store_aligned(lanes);
  float total = 0.0f;
  for (float lane : lanes) total += lane;
  return total;
}

// 12 chains: enough to cover FMA latency x throughput (4 x 2 on Zen) and to fit in
// 16 vector registers with m and c.
template <class Arch, bool kAddendChains = false>
float fma_loop_12(size_t iterations, float seed) {
  FOCAL_BENCH_FMA_LOOP(FOCAL_BENCH_ACC12)
}

// 16 chains, for instruction sets with 32 vector registers (AVX-512, AArch64).
template <class Arch, bool kAddendChains = false>
float fma_loop_16(size_t iterations, float seed) {
  FOCAL_BENCH_FMA_LOOP(FOCAL_BENCH_ACC16)
}

// Eight independent sums, so the adds are never the limit, only the loads.
template <class Arch>
float sum_floats(const float* data, size_t count) {
  using B = xsimd::batch<float, Arch>;
  constexpr size_t kLanes = B::size;
  B s0(0.0f), s1(0.0f), s2(0.0f), s3(0.0f), s4(0.0f), s5(0.0f), s6(0.0f), s7(0.0f);
  size_t i = 0;
  for (; i + 8 * kLanes <= count; i += 8 * kLanes) {
    s0 += B::load_aligned(data + i + 0 * kLanes);
    s1 += B::load_aligned(data + i + 1 * kLanes);
    s2 += B::load_aligned(data + i + 2 * kLanes);
    s3 += B::load_aligned(data + i + 3 * kLanes);
    s4 += B::load_aligned(data + i + 4 * kLanes);
    s5 += B::load_aligned(data + i + 5 * kLanes);
    s6 += B::load_aligned(data + i + 6 * kLanes);
    s7 += B::load_aligned(data + i + 7 * kLanes);
  }
  float total = lane_sum<Arch>(((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)));
  for (; i < count; ++i) total += data[i];
  return total;
}

template <class Arch>
constexpr size_t flop_per_iteration(size_t accumulators) {
  return accumulators * xsimd::batch<float, Arch>::size * 2;
}

// One instruction set's table: the FMA loop with kChains (12 or 16) chains, addend
// chains where the FMA overwrites its addend (NEON), and the sum.
template <class Arch, size_t kChains, bool kAddendChains = false>
const focal_bench::detail::PeakKernels* peak_table(const char* isa) {
  static_assert(kChains == 12 || kChains == 16, "fma_loop_12 or fma_loop_16");
  float (*fma_loop)(size_t, float) = nullptr;
  if constexpr (kChains == 16) {
    fma_loop = &fma_loop_16<Arch, kAddendChains>;
  } else {
    fma_loop = &fma_loop_12<Arch, kAddendChains>;
  }
  static const focal_bench::detail::PeakKernels kernels = {isa, flop_per_iteration<Arch>(kChains), fma_loop,
                                                           &sum_floats<Arch>};
  return &kernels;
}

}  // namespace

#undef FOCAL_BENCH_FMA_LOOP
#undef FOCAL_BENCH_PLUS
#undef FOCAL_BENCH_STEP
#undef FOCAL_BENCH_DECLARE

#endif  // !XSIMD_NO_SUPPORTED_ARCHITECTURE
