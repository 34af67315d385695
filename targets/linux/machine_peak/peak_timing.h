// Internal to machine_peak: how a register-only peak loop is timed, shared by the FMA
// and the int8 dot-product peaks.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>

namespace focal_bench {
namespace detail {

// Seconds of the fastest of several calls of run(iterations): the count grows until one
// call takes 20 ms (this also warms the vector units up), then the best of 7 more calls
// is kept, as interference only ever slows a run down. Sets *iterations to the count.
template <class Run>
double fastest_loop_seconds(Run&& run, size_t* iterations) {
  using Clock = std::chrono::steady_clock;
  auto timed = [&](size_t count) {
    const Clock::time_point start = Clock::now();
    run(count);
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  size_t count = size_t{1} << 14;
  double seconds = timed(count);
  while (seconds < 0.02 && count < std::numeric_limits<size_t>::max() / 4) {
    count *= 2;
    seconds = timed(count);
  }
  double best = seconds;
  for (int repeat = 0; repeat < 7; ++repeat) best = std::min(best, timed(count));
  *iterations = count;
  return best;
}

}  // namespace detail
}  // namespace focal_bench
