// The limits of this machine, measured by the benchmark itself so that results can be
// stated as fractions of them: the single-core fp32 FMA peak of the best instruction set
// the CPU has, and the single-core DRAM read bandwidth.
#pragma once

namespace focal_bench {

struct MachinePeak {
  // Instruction set of the FMA loop: "avx512", "avx2", "sse2", "neon64", "neon", "scalar".
  const char* isa = "scalar";
  double fma_gflops = 0.0;     // one core, fp32, GFLOP/s (one FMA lane = 2 FLOP)
  double dram_read_gbs = 0.0;  // one core, GB/s (1e9 bytes), summing a 512 MiB buffer
};

// Measured on the first call (about two seconds, most of it touching the buffer), then
// cached for the life of the process. Thread-safe.
const MachinePeak& machine_peak();

// The two halves, each measured once per process on first use.
double measure_fma_peak_gflops(const char** isa);
double measure_dram_read_gbs();

// The single-core int8 dot-product peak: a register-only loop of independent vpdpbusd
// (AVX-512 VNNI) or sdot (AArch64 dotprod), the instructions the int8 GEMMs run on.
struct Int8DotPeak {
  const char* isa = "";  // "avx512vnni", "dotprod"; "" where the CPU has neither
  double gops = 0.0;     // one core, GOP/s (one multiply-add = 2 operations); 0 without one
};

// Measured on the first call (about 0.2 s), then cached for the life of the process.
const Int8DotPeak& int8_dot_peak();
Int8DotPeak measure_int8_dot_peak();

}  // namespace focal_bench
