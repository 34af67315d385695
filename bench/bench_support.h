// Pieces every benchmark executable shares: aligned, pre-touched buffers, random
// inputs, number formatting, and the --benchmark_list_tests shortcut.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <string>

namespace focal_bench {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// 64-byte aligned, every page touched at allocation (never inside a timed loop).
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes) : bytes_(bytes == 0 ? 64 : (bytes + 63) / 64 * 64) {
    data_.reset(std::aligned_alloc(64, bytes_));
    if (data_ == nullptr) throw std::bad_alloc();
    std::memset(data_.get(), 0, bytes_);
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_.get());
  }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_ = 0;
  std::unique_ptr<void, FreeDeleter> data_;
};

inline void fill_uniform(float* x, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < count; ++i) x[i] = dist(rng);
}

inline std::string format_double(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

// --benchmark_list_tests runs nothing: no need to measure the machine (~2 s) first.
inline bool only_listing(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--benchmark_list_tests" || arg == "--benchmark_list_tests=true" ||
        arg == "--benchmark_list_tests=1") {
      return true;
    }
  }
  return false;
}

// Google Benchmark's start, for a main() that registered its cases: parses the
// arguments; when they only ask for the list of cases (printed here, nothing measured) or
// are not understood, returns true with the exit code in *exit_code, and main returns it.
inline bool started_only_to_list(int* argc, char** argv, int* exit_code) {
  const bool listing = only_listing(*argc, argv);
  benchmark::Initialize(argc, argv);
  *exit_code = 0;
  if (benchmark::ReportUnrecognizedArguments(*argc, argv)) {
    *exit_code = 1;
    return true;
  }
  if (listing) benchmark::RunSpecifiedBenchmarks();
  return listing;
}

// Google Benchmark calls a case's function several times (growing the iteration count):
// keep the buffers of the current case, made by make(c), and free them (before making
// the next) when another case starts. One case at a time, so memory stays bounded.
template <class Problem, class Case, class Make>
Problem& current_problem(const Case& c, Make make) {
  static const Case* current = nullptr;
  static std::unique_ptr<Problem> problem;
  if (current != &c) {
    problem.reset();
    problem = make(c);
    current = &c;
  }
  return *problem;
}

}  // namespace focal_bench
