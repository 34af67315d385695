// Internal to machine_peak, included only by the int8 dot-product loops' translation units
// (int8_dot_<isa>.cpp), each compiled with its own flags: the loop once, over an ISA's
// few operations (Ops: the accumulator type Acc, splat_acc, operands, dot, add,
// lane_sum). Everything here has internal linkage, so no function built with one set of
// flags can be merged by the linker with one built with another.
//
// 16 named accumulators: g++ 12 spills arrays of vector accumulators (shared notes);
// enough chains to cover the instruction's latency times its throughput. `objdump -d`
// of the object must show the loop as dot-product instructions on registers only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "peak_kernels.h"

#define FOCAL_BENCH_DOT16(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define FOCAL_BENCH_DOT_DECLARE(i) typename Ops::Acc a##i = Ops::splat_acc(seed + (i));
#define FOCAL_BENCH_DOT_STEP(i) a##i = Ops::dot(a##i, x, y);
#define FOCAL_BENCH_DOT_PLUS(i) total = Ops::add(total, a##i);

namespace {

// Independent chains of acc += dot(x, y); the operands come from the seed, so the
// compiler cannot fold the products. The sums wrap (the instructions' own arithmetic),
// which is harmless here.
template <class Ops>
int32_t int8_dot_loop(size_t iterations, int32_t seed) {
  const auto x = Ops::operand(1 + (seed & 3));
  const auto y = Ops::operand(-1 - (seed & 3));
  FOCAL_BENCH_DOT16(FOCAL_BENCH_DOT_DECLARE)
  for (size_t it = 0; it < iterations; ++it) {
    FOCAL_BENCH_DOT16(FOCAL_BENCH_DOT_STEP)
  }
  typename Ops::Acc total = Ops::splat_acc(0);
  FOCAL_BENCH_DOT16(FOCAL_BENCH_DOT_PLUS)
  return Ops::lane_sum(total);
}

// The table of one instruction set: 16 chains of Ops::kMultiplyAdds each.
template <class Ops>
const focal_bench::detail::Int8DotKernels* int8_dot_table(const char* isa) {
  static const focal_bench::detail::Int8DotKernels kernels = {isa, 16 * Ops::kMultiplyAdds * 2,
                                                              &int8_dot_loop<Ops>};
  return &kernels;
}

}  // namespace

#undef FOCAL_BENCH_DOT_PLUS
#undef FOCAL_BENCH_DOT_STEP
#undef FOCAL_BENCH_DOT_DECLARE
