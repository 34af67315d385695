// Shared by the pointwise kernel tests (tests/test_pointwise_<family>.cpp): the sizes
// swept, guarded output buffers, error bookkeeping against a tolerance, and the list
// of kernel sets this CPU can run.
//
// Tolerances. u = 2^-24 (half an f32 ulp at 1). Each op's bound is a first-order error
// estimate with a few ulp per rounding step and per library function (xsimd's and
// libm's exp, erf, tanh, sin, cos are within 2-4 ulp), so it follows the conditioning:
//  - sums of n terms (norms, softmax): 8u (sqrt(n) + 2) relative to the row's scale
//    (f32 sums drift like sqrt(n) u in practice; n u is the never-reached worst case);
//  - softmax: + 4u |x - max| relative (the f32 argument of exp carries u |x - max|);
//  - gelu: + 8u |a| absolute, as 1 + erf(a / sqrt 2) cancels for negative a (PyTorch's
//    f32 gelu has the same cancellation);
//  - RoPE, sinusoid: 8u |x| absolute: sin and cos of the documented f32 angle (the
//    double computation uses the same f32 angle: the angle's own rounding is a choice
//    of the definition, shared with PyTorch, not a kernel error);
//  - LSTM / GRU: the bound is propagated through each gate (sigmoid' = s (1 - s),
//    tanh' = 1 - t^2), so saturated gates get tight bounds and cancelling sums wide ones;
//  - residual add, embedding gather, CLS pooling: exact; mean pooling: bitwise the
//    reference's (same order of sums).
// Each test case prints its worst error as a fraction of its tolerance.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "dispatch/pointwise_dispatch.h"
#include "simd/vec_scalar.hpp"
#include "support/aligned_buffer.h"
#include "support/random_values.h"

namespace focal {
namespace pointwise_testing {

using namespace focal::kernels;
using focal::testing::AlignedBuffer;


constexpr size_t kWidths[] = {1, 3, 15, 16, 17, 31, 33, 100, 768};
constexpr double kU = 1.0 / 16777216.0;  // 2^-24
constexpr float kSentinel = 7777.0f;
constexpr size_t kGuard = 16;  // floats of guard zone on each side (64 bytes)
inline const float kInf = std::numeric_limits<float>::infinity();

inline std::vector<float> uniform(size_t n, uint32_t seed, float lo, float hi) {
  return focal::testing::random_values(n, seed, lo, hi);
}

// n floats at `misalign` floats past a 64-byte boundary, between two guard zones
// holding kSentinel: a kernel that writes outside its output shows in guards_intact().
class Floats {
 public:
  explicit Floats(size_t n, size_t misalign = 0)
      : n_(n),
        total_(n + 2 * kGuard + misalign),
        buffer_(total_ * sizeof(float)),
        base_(reinterpret_cast<float*>(buffer_.data())),
        data_(base_ + kGuard + misalign) {
    std::fill(base_, base_ + total_, kSentinel);
  }
  Floats(const std::vector<float>& values, size_t misalign) : Floats(values.size(), misalign) {
    std::copy(values.begin(), values.end(), data_);
  }
  float* data() { return data_; }
  const float* data() const { return data_; }
  size_t size() const { return n_; }
  float& operator[](size_t i) { return data_[i]; }
  float operator[](size_t i) const { return data_[i]; }
  void assign(const std::vector<float>& values) { std::copy(values.begin(), values.end(), data_); }
  void fill(float value) { std::fill(data_, data_ + n_, value); }
  bool guards_intact() const {
    for (const float* p = base_; p < data_; ++p) {
      if (std::memcmp(p, &kSentinel, 4) != 0) return false;
    }
    for (const float* p = data_ + n_; p < base_ + total_; ++p) {
      if (std::memcmp(p, &kSentinel, 4) != 0) return false;
    }
    return true;
  }

 private:
  size_t n_, total_;
  AlignedBuffer buffer_;
  float* base_;
  float* data_;
};

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

// The largest |got - want| / tolerance seen, and where.
struct Worst {
  double ratio = 0.0;
  double got = 0.0, want = 0.0, tolerance = 0.0;
  size_t index = 0;

  void add(size_t i, double g, double w, double tol) {
    double r;
    if (std::isnan(w)) {
      r = std::isnan(g) ? 0.0 : INFINITY;
    } else if (std::isnan(g)) {
      r = INFINITY;
    } else if (g == w) {
      r = 0.0;
    } else {
      r = std::fabs(g - w) / tol;
    }
    if (r > ratio || (std::isinf(r) && !std::isinf(ratio))) {
      ratio = r;
      got = g;
      want = w;
      tolerance = tol;
      index = i;
    }
  }
  std::string str() const {
    return "worst " + std::to_string(ratio) + " of the tolerance at [" + std::to_string(index) +
           "]: got " + std::to_string(got) + " want " + std::to_string(want) + " tolerance " +
           std::to_string(tolerance);
  }
};

// Every usable kernel set (scalar first).
inline std::vector<KernelSet> kernel_sets() {
  const KernelSets& usable = usable_kernel_sets();
  std::vector<KernelSet> sets;
  for (int i = 0; i < usable.count; ++i) sets.push_back(*usable.sets[i]);
  return sets;
}

// Worst ratio over a test case, printed at its end.
struct CaseReport {
  const char* name;
  double worst = 0.0;
  size_t checks = 0;
  explicit CaseReport(const char* n) : name(n) {}
  void take(const Worst& w) {
    worst = std::max(worst, w.ratio);
    ++checks;
  }
  ~CaseReport() {
    MESSAGE(std::string(name) << ": " << checks << " comparisons, worst error " << worst
                              << " of the tolerance");
  }
};


}  // namespace pointwise_testing
}  // namespace focal
