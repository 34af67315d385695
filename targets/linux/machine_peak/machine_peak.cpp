// Measures this machine's limits once per process: the FMA loop and the read loop of the
// best instruction set the CPU supports (chosen with xsimd::available_architectures()),
// timed here, in baseline code.
#include "machine_peak.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <xsimd/xsimd.hpp>

#include "peak_kernels.h"
#include "peak_timing.h"

namespace focal_bench {
namespace detail {
namespace {

// Plain C++ for CPUs without a vector instruction set known to xsimd.
float scalar_fma_loop(size_t iterations, float seed) {
  const float m = 0.9990234375f;
  const float c = 0.0009765625f;
  float a0 = seed, a1 = seed + 1.0f, a2 = seed + 2.0f, a3 = seed + 3.0f;
  float a4 = seed + 4.0f, a5 = seed + 5.0f, a6 = seed + 6.0f, a7 = seed + 7.0f;
  for (size_t it = 0; it < iterations; ++it) {
    a0 = a0 * m + c;
    a1 = a1 * m + c;
    a2 = a2 * m + c;
    a3 = a3 * m + c;
    a4 = a4 * m + c;
    a5 = a5 * m + c;
    a6 = a6 * m + c;
    a7 = a7 * m + c;
  }
  return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}

float scalar_sum(const float* data, size_t count) {
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    s0 += data[i];
    s1 += data[i + 1];
    s2 += data[i + 2];
    s3 += data[i + 3];
  }
  for (; i < count; ++i) s0 += data[i];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace

const PeakKernels* peak_kernels_scalar() {
  static const PeakKernels kernels = {"scalar", 8 * 2, &scalar_fma_loop, &scalar_sum};
  return &kernels;
}

// Instruction sets this build has no translation unit for.
#if !(defined(__x86_64__) || defined(__i386__))
const PeakKernels* peak_kernels_avx512() { return nullptr; }
const PeakKernels* peak_kernels_avx2() { return nullptr; }
const PeakKernels* peak_kernels_sse2() { return nullptr; }
#endif
#if !(defined(__aarch64__) || defined(__arm__))
const PeakKernels* peak_kernels_neon() { return nullptr; }
#endif

}  // namespace detail

namespace {

using detail::PeakKernels;

const PeakKernels* best_kernels() {
  const PeakKernels* chosen = nullptr;
#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
  const auto cpu = xsimd::available_architectures();
#if defined(__x86_64__) || defined(__i386__)
  if (chosen == nullptr && cpu.avx512bw) chosen = detail::peak_kernels_avx512();
  if (chosen == nullptr && cpu.fma3_avx2) chosen = detail::peak_kernels_avx2();
  if (chosen == nullptr && cpu.sse2) chosen = detail::peak_kernels_sse2();
#elif defined(__aarch64__) || defined(__arm__)
  if (chosen == nullptr && (cpu.neon64 || cpu.neon)) chosen = detail::peak_kernels_neon();
#endif
#endif
  return chosen != nullptr ? chosen : detail::peak_kernels_scalar();
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

volatile float g_sink = 0.0f;  // results land here, so no loop is optimized away

}  // namespace

double measure_fma_peak_gflops(const char** isa) {
  const PeakKernels* kernels = best_kernels();
  if (isa != nullptr) *isa = kernels->isa;
  const float seed = g_sink + 1.0f;  // not a constant the compiler could fold
  size_t iterations = 0;
  const double best = detail::fastest_loop_seconds(
      [&](size_t count) { g_sink = g_sink + kernels->fma_loop(count, seed); }, &iterations);
  const double flop =
      static_cast<double>(iterations) * static_cast<double>(kernels->flop_per_iteration);
  return flop / best * 1e-9;
}

double measure_dram_read_gbs() {
  constexpr size_t kBytes = size_t{512} << 20;  // far beyond any cache
  constexpr size_t kCount = kBytes / sizeof(float);
  float* data = static_cast<float*>(std::aligned_alloc(64, kBytes));
  if (data == nullptr) return 0.0;
  // Touch every page once before timing (a first touch costs ~11 us per 4 KiB page on
  // this kind of VM), with values whose sum stays exact enough to be harmless.
  for (size_t i = 0; i < kCount; ++i) data[i] = static_cast<float>(i & 7u) * 0.125f;
  const PeakKernels* kernels = best_kernels();
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {  // the first also warms the TLB and prefetchers up
    const Clock::time_point start = Clock::now();
    g_sink = g_sink + kernels->sum(data, kCount);
    best = std::min(best, seconds_since(start));
  }
  std::free(data);
  return static_cast<double>(kBytes) / best * 1e-9;
}

const MachinePeak& machine_peak() {
  static const MachinePeak peak = [] {
    MachinePeak measured;
    measured.fma_gflops = measure_fma_peak_gflops(&measured.isa);
    measured.dram_read_gbs = measure_dram_read_gbs();
    return measured;
  }();
  return peak;
}

}  // namespace focal_bench
