// The Vec interface's own e^x and tanh (engine/src/kernels/simd), in ulp of the exact result,
// over the whole float range: the scalar twin (libm) everywhere, and Helium's vectorized
// versions (vec_mve.hpp) when this is built for a core with MVE (the Cortex-M55 firmware
// tests). Special values: NaN stays NaN, exp(-inf) = 0, exp(+inf) = +inf, tanh(+-inf) = +-1.
// exp is held to 2 ulp down to 2^-126; below, 0 is accepted too (flushed subnormals).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "attention/attention_kernels.h"
#include "dispatch/kernel_set.h"
#include "simd/vec_scalar.hpp"
#include "support/random_values.h"
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include "simd/vec_mve.hpp"
#endif

namespace {

using focal::simd::Vec;

// |got - want| in units of the last place of want (the spacing of floats at |want|, at
// least the smallest subnormal's).
double ulp_error(float got, double want) {
  const double magnitude = std::fabs(want);
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  const double ulp = std::ldexp(1.0, std::max(exponent - 24, -149));
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

struct Sweep {
  double worst = 0.0;
  float worst_x = 0.0f;
  void take(float x, float got, double want) {
    const double e = ulp_error(got, want);
    if (e > worst) {
      worst = e;
      worst_x = x;
    }
  }
};

template <class Arch>
float apply(float x, typename Vec<Arch>::type (*f)(typename Vec<Arch>::type)) {
  using V = Vec<Arch>;
  float lanes[16] = {};
  lanes[0] = x;
  const typename V::type y = f(V::load_partial(lanes, 1, x));
  V::store_partial(lanes, 1, y);
  return lanes[0];
}

template <class Arch>
void check_exp(const char* isa) {
  using V = Vec<Arch>;
  Sweep sweep;
  bool overflow_is_inf = true, below_normal_ok = true;
  for (int i = 0; i <= 400000; ++i) {
    const float x = -110.0f + 200.0f * static_cast<float>(i) / 400000.0f;
    const double want = std::exp(static_cast<double>(x));
    const float got = apply<Arch>(x, V::exp);
    if (want > std::numeric_limits<float>::max()) {
      overflow_is_inf = overflow_is_inf && std::isinf(got);
    } else if (want < std::numeric_limits<float>::min()) {
      // Below 2^-126: a subnormal within 2 ulp, or 0 where the arithmetic flushes
      // subnormals (MVE, as AArch32 NEON).
      below_normal_ok = below_normal_ok && (got == 0.0f || ulp_error(got, want) <= 2.0);
    } else {
      sweep.take(x, got, want);
    }
  }
  CHECK(overflow_is_inf);
  CHECK(below_normal_ok);
  CHECK(sweep.worst <= 2.0);
  MESSAGE(std::string(isa) << " exp worst error " << sweep.worst << " ulp at " << sweep.worst_x);
  CHECK(std::isnan(apply<Arch>(std::numeric_limits<float>::quiet_NaN(), V::exp)));
  CHECK(apply<Arch>(-std::numeric_limits<float>::infinity(), V::exp) == 0.0f);
  CHECK(apply<Arch>(std::numeric_limits<float>::infinity(), V::exp) == std::numeric_limits<float>::infinity());
  CHECK(apply<Arch>(0.0f, V::exp) == 1.0f);
}

template <class Arch>
void check_tanh(const char* isa) {
  using V = Vec<Arch>;
  Sweep sweep;
  for (int i = 0; i <= 400000; ++i) {
    const float x = -25.0f + 50.0f * static_cast<float>(i) / 400000.0f;
    sweep.take(x, apply<Arch>(x, V::tanh), std::tanh(static_cast<double>(x)));
  }
  for (int i = 0; i <= 30000; ++i) {  // tiny |x|, 1e-30 to 1: where 1 - e^-2x would cancel
    const float x = static_cast<float>(std::pow(10.0, -30.0 + 30.0 * i / 30000.0));
    sweep.take(x, apply<Arch>(x, V::tanh), std::tanh(static_cast<double>(x)));
    sweep.take(-x, apply<Arch>(-x, V::tanh), std::tanh(-static_cast<double>(x)));
  }
  CHECK(sweep.worst <= 3.0);
  MESSAGE(std::string(isa) << " tanh worst error " << sweep.worst << " ulp at " << sweep.worst_x);
  CHECK(std::isnan(apply<Arch>(std::numeric_limits<float>::quiet_NaN(), V::tanh)));
  CHECK(apply<Arch>(std::numeric_limits<float>::infinity(), V::tanh) == 1.0f);
  CHECK(apply<Arch>(-std::numeric_limits<float>::infinity(), V::tanh) == -1.0f);
  CHECK(apply<Arch>(0.0f, V::tanh) == 0.0f);
}

TEST_CASE("vec math: exp within 2 ulp, tanh within 3 ulp, special values kept") {
  check_exp<focal::simd::ScalarArch>("scalar");
  check_tanh<focal::simd::ScalarArch>("scalar");
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
  check_exp<focal::simd::MveArch>("mve");
  check_tanh<focal::simd::MveArch>("mve");
#endif
}

}  // namespace

namespace {

// Largest error of y[i] = 2^x[i] over the first `count` points, in units of the spacing
// of floats near the exact result.
double worst_exp2_ulp(const std::vector<float>& x, const std::vector<float>& y, size_t count) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i) {
    const double want = std::exp2(double(x[i]));
    const double ulp = std::ldexp(1.0, std::ilogb(want) - 23);
    worst = std::max(worst, std::fabs(double(y[i]) - want) / ulp);
  }
  return worst;
}

// Runs one of the attention table's exp2 forms of every usable kernel set on x, checks
// the first `finite` points within 2 ulp and hands the output to check_specials.
using Exp2Fn = void (*)(const float*, float*, size_t);
template <class CheckSpecials>
void check_exp2_form(Exp2Fn focal::kernels::AttentionKernelTable::*form, const char* name,
                     const std::vector<float>& x, size_t finite, CheckSpecials check_specials) {
  std::vector<float> y(x.size());
  const focal::kernels::KernelSets& sets = focal::kernels::usable_kernel_sets();
  for (int t = 0; t < sets.count; ++t) {
    const focal::kernels::KernelSet& set = *sets.sets[t];
    CAPTURE(std::string(set.isa));
    (set.attention->*form)(x.data(), y.data(), x.size());
    const double worst_ulp = worst_exp2_ulp(x, y, finite);
    CHECK(worst_ulp <= 2.0);
    const std::string what = std::string(set.isa) + " " + name;
    MESSAGE(what << " worst error " << worst_ulp << " ulp");
    check_specials(y);
  }
}

}  // namespace

// The attention kernels' exp2 (softmax-grade, every kernel set).
TEST_CASE("attention: the softmax exp2 is within 2 ulp, 0 below -126 and for -inf") {
  std::vector<float> x;
  for (float v = -125.9f; v < 127.9f; v += 0.001953125f) x.push_back(v);  // 2^-9 steps
  const std::vector<float> r = focal::testing::random_values(100000, 77, -125.0f, 127.0f);
  x.insert(x.end(), r.begin(), r.end());
  const size_t finite = x.size();
  for (float v : {-INFINITY, -126.0f, -127.0f, -1e30f, -150.0f, 0.0f, -0.0f, 1.0f, 129.0f, INFINITY})
    x.push_back(v);
  check_exp2_form(&focal::kernels::AttentionKernelTable::exp2, "exp2", x, finite, [&](const std::vector<float>& y) {
    CHECK(y[finite + 0] == 0.0f);  // -inf
    CHECK(y[finite + 1] == 0.0f);  // -126 and below: 0 (subnormals are not produced)
    CHECK(y[finite + 2] == 0.0f);
    CHECK(y[finite + 3] == 0.0f);
    CHECK(y[finite + 4] == 0.0f);
    CHECK(y[finite + 5] == 1.0f);
    CHECK(y[finite + 6] == 1.0f);
    CHECK(y[finite + 7] == 2.0f);
    CHECK(std::isinf(y[finite + 8]));
    CHECK(std::isinf(y[finite + 9]));
  });
}

// The softmax's own exp2 for arguments <= 64 (Vec::exp2_bounded, every kernel set): as
// accurate as exp2 from -125.5 up (below, 2^x is near or under the smallest normal float,
// where the result may be 0 or subnormal), exactly 0 at -127 and below and for -inf.
TEST_CASE("attention: the softmax's bounded exp2 is within 2 ulp down to -125.5, 0 at -127 and for -inf") {
  std::vector<float> x;
  // Fewer points than the exp2 case above: the two together do not fit the M55's heap.
  for (float v = -125.5f; v <= 64.0f; v += 0.0078125f) x.push_back(v);  // 2^-7 steps
  const std::vector<float> r = focal::testing::random_values(20000, 78, -125.5f, 64.0f);
  x.insert(x.end(), r.begin(), r.end());
  const size_t finite = x.size();
  for (float v : {-INFINITY, -127.0f, -1e30f, -150.0f, -0.0f})
    x.push_back(v);
  x.push_back(1.0f);  // a tail shorter than any vector
  check_exp2_form(&focal::kernels::AttentionKernelTable::exp2_bounded, "bounded exp2", x, finite,
                  [&](const std::vector<float>& y) {
                    for (size_t i = finite; i < finite + 4; ++i) CHECK(y[i] == 0.0f);
                    CHECK(y[finite + 4] == 1.0f);
                    CHECK(y[finite + 5] == 2.0f);
                  });
}
