// The single-core int8 dot-product peak: the loop of the best int8 dot-product
// instruction this CPU has (int8_dot_kernels.h), timed here, in baseline code. CPUs
// without one (x86 without AVX512_VNNI, ARM without FEAT_DotProd) report none: their
// int8 GEMMs run on widening multiplies, whose limit is the FMA peak's order.
#include <cstdint>

#include "int8_dot_kernels.h"
#include "machine_peak.h"
#include "peak_timing.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace focal_bench {
namespace detail {

#if !defined(FOCAL_BENCH_HAVE_VNNI_LOOP)
const Int8DotKernels* int8_dot_kernels_avx512vnni() { return nullptr; }
#endif
#if !defined(FOCAL_BENCH_HAVE_DOTPROD_LOOP)
const Int8DotKernels* int8_dot_kernels_dotprod() { return nullptr; }
#endif

}  // namespace detail

namespace {

const detail::Int8DotKernels* best_int8_dot_kernels() {
#if defined(__x86_64__) || defined(__i386__)
  // Checks the OS's AVX-512 register state too.
  if (__builtin_cpu_supports("avx512vnni")) return detail::int8_dot_kernels_avx512vnni();
#elif defined(__aarch64__) && defined(__linux__)
  // Linux hwcaps (asm/hwcap.h): HWCAP_ASIMDDP is bit 20 of AT_HWCAP.
  if ((getauxval(AT_HWCAP) & (1ul << 20)) != 0) return detail::int8_dot_kernels_dotprod();
#endif
  return nullptr;
}

volatile uint32_t g_int8_sink = 0;  // results land here, so no loop is optimized away

}  // namespace

Int8DotPeak measure_int8_dot_peak() {
  Int8DotPeak peak;
  const detail::Int8DotKernels* kernels = best_int8_dot_kernels();
  if (kernels == nullptr) return peak;
  const auto seed = static_cast<int32_t>(g_int8_sink & 3u);  // not a constant the compiler could fold
  size_t iterations = 0;
  const double seconds = detail::fastest_loop_seconds(
      [&](size_t count) { g_int8_sink = g_int8_sink + static_cast<uint32_t>(kernels->dot_loop(count, seed)); }, &iterations);
  peak.isa = kernels->isa;
  peak.gops = static_cast<double>(iterations) * static_cast<double>(kernels->ops_per_iteration) / seconds * 1e-9;
  return peak;
}

const Int8DotPeak& int8_dot_peak() {
  static const Int8DotPeak peak = measure_int8_dot_peak();
  return peak;
}

}  // namespace focal_bench
