// The GEMM kernel family against a double-precision computation, on every instruction
// set this CPU has and on the scalar reference twin: shapes across the tile and panel
// edges, every weight type (decoded from the packed bytes as gemm.h documents them),
// every activation, strided and misaligned x/y, extreme values, bitwise equality across
// workers, and refusals (the packing: test_gemm_packing.cpp).
//
// Tolerance, per output: the pre-activation sum z may be off by
//   tol_z = (K + 2) * 2^-24 * (sum_k |x_k w_k| + |bias|)   (+ 2^-24 |z| for the int8 scale)
// (the classic bound for a recursive f32 sum, with w the stored weights in double), and
// the output by the activation's variation over [z - tol_z, z + tol_z] (x1.5), plus
// 8 ulp of the output and, for gelu/silu/tanh, 4 ulp of |z| (1 + erf and 1 + tanh cancel
// for negative z), plus (K + 4) * 2^-149 for subnormals. Against the unrounded f32
// weights the quantized types may add their rounding: f16 2^-11 |w| + 2^-25, bf16
// 2^-8 |w|, int8 scale / 2, per weight, times |x|.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support/emulation.h"
#include "focal/gemm.h"
#include "dispatch/gemm_dispatch.h"
#include "simd/vec_scalar.hpp"
#include "support/aligned_buffer.h"
#include "support/packed_weights.h"
#include "support/random_values.h"
#if !defined(FOCAL_TESTS_BARE_METAL)
#include "thread_pool.h"
#endif

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

using focal::testing::decode_packed;
using focal::testing::kPanel;
constexpr float kUntouched = -12345.5f;  // sentinel in y outside the outputs

const char* type_name(DType type) { return dtype_name(type); }

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::kNone:
      return "none";
    case Activation::kRelu:
      return "relu";
    case Activation::kGeluErf:
      return "gelu_erf";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kSilu:
      return "silu";
    case Activation::kTanh:
      return "tanh";
    case Activation::kSigmoid:
      return "sigmoid";
  }
  return "?";
}

double activate(Activation a, double z) {
  switch (a) {
    case Activation::kNone:
      return z;
    case Activation::kRelu:
      return z > 0 ? z : 0.0;
    case Activation::kGeluErf:
      return 0.5 * z * (1.0 + std::erf(z / std::sqrt(2.0)));
    case Activation::kGeluTanh:
      return 0.5 * z * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (z + 0.044715 * z * z * z)));
    case Activation::kSilu:
      return z / (1.0 + std::exp(-z));
    case Activation::kTanh:
      return std::tanh(z);
    case Activation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-z));
  }
  return z;
}

struct Case {
  size_t m = 1, n = 1, k = 1;
  DType type = DType::kF32;
  Activation activation = Activation::kNone;
  bool bias = true;
  size_t x_offset = 0, y_offset = 0;  // floats from a 64-byte boundary: misaligned rows
  size_t x_pad = 0, y_pad = 0;        // stride - k and stride - n
  float x_range = 1.0f, w_range = 1.0f;
  bool wide_exponents = false;  // x_k = u * 10^e, e uniform in [-30, 30]
  uint32_t seed = 1;
};

std::string describe(const Case& c) {
  return "m" + std::to_string(c.m) + " n" + std::to_string(c.n) + " k" + std::to_string(c.k) + " " +
         type_name(c.type) + " " + activation_name(c.activation) + (c.bias ? " bias" : "") +
         " xoff" + std::to_string(c.x_offset) + " yoff" + std::to_string(c.y_offset) + " xpad" +
         std::to_string(c.x_pad) + " ypad" + std::to_string(c.y_pad) + " xr" +
         std::to_string(c.x_range) + " wr" + std::to_string(c.w_range) +
         (c.wide_exponents ? " wide" : "");
}

// Owns the buffers of one case.
struct Instance {
  Case c;
  size_t x_stride, y_stride;
  std::vector<float> w, bias;
  AlignedBuffer x_buffer, y_buffer, packed;
  size_t packed_bytes;
  std::vector<double> w_stored;  // decoded from `packed`

  explicit Instance(const Case& cs)
      : c(cs),
        x_stride(cs.k + cs.x_pad),
        y_stride(cs.n + cs.y_pad),
        x_buffer((cs.m * (cs.k + cs.x_pad) + 1) * 4, cs.x_offset * 4),
        y_buffer((cs.m * (cs.n + cs.y_pad) + 1) * 4, cs.y_offset * 4),
        packed(packed_dense_weights_bytes(cs.type, cs.n, cs.k)),
        packed_bytes(packed_dense_weights_bytes(cs.type, cs.n, cs.k)) {
    w = testing::random_values(c.n * c.k, c.seed, -c.w_range, c.w_range);
    bias = testing::random_values(c.n, c.seed + 1, -1.0f, 1.0f);
    std::vector<float> xs =
        testing::random_values(c.m * x_stride, c.seed + 2, -c.x_range, c.x_range);
    if (c.wide_exponents) {
      const std::vector<float> e = testing::random_values(xs.size(), c.seed + 3, -30.0f, 30.0f);
      for (size_t i = 0; i < xs.size(); ++i)
        xs[i] = float(double(xs[i]) * std::pow(10.0, std::round(e[i])));
    }
    std::memcpy(x(), xs.data(), xs.size() * 4);
    const Result<size_t> written =
        pack_dense_weights(c.type, w.data(), c.n, c.k, packed.data(), packed_bytes);
    REQUIRE_MESSAGE(written.ok(), written.status().message());
    CHECK(*written == packed_bytes);
    w_stored = decode_packed(c.type, packed.data(), c.n, c.k);
  }

  float* x() { return reinterpret_cast<float*>(x_buffer.data()); }
  float* y() { return reinterpret_cast<float*>(y_buffer.data()); }

  void clear_y() {
    for (size_t i = 0; i < c.m * y_stride + 1; ++i) y()[i] = kUntouched;
  }

  GemmParams params() {
    GemmParams p;
    p.m = c.m;
    p.n = c.n;
    p.k = c.k;
    p.weight_type = c.type;
    p.activation = c.activation;
    p.x = x();
    p.x_stride = c.x_pad ? x_stride : 0;
    p.packed_weights = packed.data();
    p.packed_weights_bytes = packed_bytes;
    p.bias = c.bias ? bias.data() : nullptr;
    p.y = y();
    p.y_stride = c.y_pad ? y_stride : 0;
    return p;
  }
};

struct Expected {
  std::vector<double> value, tolerance;
};

// The double computation with the stored weights and the tolerance of each output
// (see the top of the file); `rounding` adds the bound of the weights' own rounding and
// uses the unrounded f32 weights instead.
Expected expected(Instance& in, bool rounding) {
  const Case& c = in.c;
  Expected e;
  e.value.resize(c.m * c.n);
  e.tolerance.resize(c.m * c.n);
  const double u = std::ldexp(1.0, -24);
  const bool smooth = c.activation != Activation::kNone && c.activation != Activation::kRelu;
  for (size_t m = 0; m < c.m; ++m) {
    const float* x = in.x() + m * in.x_stride;
    for (size_t n = 0; n < c.n; ++n) {
      double z = 0, magnitude = 0, weight_error = 0, scale = 0;
      for (size_t i = 0; i < c.k; ++i) {
        const double stored = in.w_stored[n * c.k + i], original = in.w[n * c.k + i];
        z += double(x[i]) * (rounding ? original : stored);
        magnitude += std::fabs(double(x[i]) * stored);
        scale = std::max(scale, std::fabs(original) / 127.0);
        if (rounding) {
          double per_weight = 0;
          if (c.type == DType::kF16)
            per_weight = std::ldexp(std::fabs(original), -11) + std::ldexp(1.0, -25);
          if (c.type == DType::kBF16) per_weight = std::ldexp(std::fabs(original), -8);
          weight_error += std::fabs(double(x[i])) * per_weight;
        }
      }
      if (rounding && c.type == DType::kI8) {
        double sum_x = 0;
        for (size_t i = 0; i < c.k; ++i) sum_x += std::fabs(double(x[i]));
        weight_error = sum_x * scale * 0.5 * (1 + 1e-6);
      }
      const double b = c.bias ? double(in.bias[n]) : 0.0;
      z += b;
      double tol_z = double(c.k + 2) * u * (magnitude + std::fabs(b)) + weight_error;
      if (c.type == DType::kI8) tol_z += u * std::fabs(z);
      const double want = activate(c.activation, z);
      const double variation = std::max(std::fabs(activate(c.activation, z + tol_z) - want),
                                        std::fabs(activate(c.activation, z - tol_z) - want));
      e.value[m * c.n + n] = want;
      e.tolerance[m * c.n + n] = 1.5 * variation + 8 * u * std::fabs(want) +
                                 (smooth ? 4 * u * std::fabs(z) : 0.0) +
                                 double(c.k + 4) * std::ldexp(1.0, -149);
    }
  }
  return e;
}

// Largest |got - want| / tolerance over the outputs (infinite for NaN or a touched
// byte outside them).
double worst_ratio(Instance& in, const Expected& e) {
  const Case& c = in.c;
  double worst = 0;
  for (size_t m = 0; m < c.m; ++m) {
    for (size_t j = 0; j < in.y_stride; ++j) {
      const float got = in.y()[m * in.y_stride + j];
      if (j >= c.n) {
        if (got != kUntouched) return INFINITY;
        continue;
      }
      const double want = e.value[m * c.n + j];
      if (std::isnan(got)) return INFINITY;
      if (got == want) continue;  // also equal infinities
      worst = std::max(worst, std::fabs(double(got) - want) / e.tolerance[m * c.n + j]);
    }
  }
  if (in.y()[c.m * in.y_stride] != kUntouched) return INFINITY;  // one past the end
  return worst;
}

// Every usable kernel table and the reference against the double computation (and,
// for quantized weights, against the unrounded weights with their rounding bound).
// Returns the worst ratio seen.
double check_all_kernels(const Case& c) {
  CAPTURE(describe(c));
  Instance in(c);
  if (!gemm_weights_built(c.type)) {  // f16 and bf16 on bare metal (FOCAL_HALF_WEIGHTS): refused
    CHECK(gemm(in.params()).code() == StatusCode::kUnsupported);
    CHECK(gemm_reference(in.params()).code() == StatusCode::kUnsupported);
    return 0;
  }
  const Expected exact = expected(in, false);
  const Expected rounded = c.type == DType::kF32 ? Expected() : expected(in, true);
  double worst = 0;
  const auto check = [&](const char* who) {
    CAPTURE(who);
    const double ratio = worst_ratio(in, exact);
    CHECK(ratio <= 1.0);
    worst = std::max(worst, ratio);
    if (c.type != DType::kF32) CHECK(worst_ratio(in, rounded) <= 1.0);
  };
  in.clear_y();
  REQUIRE(gemm_reference(in.params()).ok());
  check("reference");
  const std::vector<float> reference(in.y(), in.y() + c.m * in.y_stride);

  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  for (int t = 0; t < sets.count; ++t) {
    in.clear_y();
    const Status status = gemm_with_kernels(in.params(), *sets.sets[t], nullptr);
    REQUIRE_MESSAGE(status.ok(), status.message());
    check(sets.sets[t]->isa);
  }
  return worst;
}

const DType kQuantized[] = {DType::kF16, DType::kBF16, DType::kI8};
const Activation kActivations[] = {Activation::kNone,     Activation::kRelu, Activation::kGeluErf,
                                   Activation::kGeluTanh, Activation::kSilu, Activation::kTanh,
                                   Activation::kSigmoid};

}  // namespace

TEST_CASE("gemm: f32 shapes across the tile and panel edges, every ISA") {
  double worst = 0;
  int cases = 0;
  for (size_t m : {1, 2, 3, 7, 8, 9, 64, 100}) {
    for (size_t n : {1, 15, 16, 17, 31, 32, 33, 100}) {
      for (size_t k : {1, 3, 16, 17, 64, 200}) {
        Case c;
        c.m = m;
        c.n = n;
        c.k = k;
        c.bias = (m + n + k) % 2 == 0;
        c.seed = uint32_t(m * 10000 + n * 100 + k);
        worst = std::max(worst, check_all_kernels(c));
        ++cases;
      }
    }
  }
  MESSAGE(cases << " f32 shapes, worst error " << worst << " of the tolerance");
}

TEST_CASE("gemm: f16, bf16 and int8 weights against the dequantized and the f32 weights") {
  for (DType type : kQuantized) {
    double worst = 0;
    for (size_t m : {1, 2, 3, 4, 5, 9, 64}) {
      for (size_t n : {1, 17, 32, 33, 100}) {
        for (size_t k : {1, 17, 200}) {
          Case c;
          c.m = m;
          c.n = n;
          c.k = k;
          c.type = type;
          c.seed = uint32_t(m * 10000 + n * 100 + k + 7);
          worst = std::max(worst, check_all_kernels(c));
        }
      }
    }
    MESSAGE(std::string(type_name(type)) << " worst error " << worst << " of the tolerance");
  }
}

TEST_CASE("gemm: K over several k blocks (partial sums kept in y between blocks)") {
  for (DType type : {DType::kF32, DType::kBF16, DType::kI8}) {
    for (size_t m : {2, 9}) {
      Case c;
      c.m = m;
      c.n = 33;
      c.k = 1537;  // 768-step blocks on x86: 2 and a bit; 512 on ARM, 256 for scalar
      c.type = type;
      c.activation = Activation::kRelu;
      check_all_kernels(c);
    }
  }
}

TEST_CASE("gemm: every activation on the GEMV and the tiled path") {
  for (Activation activation : kActivations) {
    for (DType type : {DType::kF32, DType::kI8}) {
      for (size_t m : {1, 3, 20}) {
        Case c;
        c.m = m;
        c.n = 70;
        c.k = 33;
        c.type = type;
        c.activation = activation;
        c.x_range = 3.0f;  // pre-activations over about -15..15
        check_all_kernels(c);
      }
    }
  }
}

TEST_CASE("gemm: strided and misaligned x and y") {
  for (size_t m : {1, 2, 4, 13}) {
    for (size_t offset : {1, 3}) {
      for (DType type : {DType::kF32, DType::kF16, DType::kBF16, DType::kI8}) {
        Case c;
        c.m = m;
        c.n = 45;
        c.k = 19;
        c.type = type;
        c.x_offset = offset;
        c.y_offset = offset + 1;
        c.x_pad = 5;
        c.y_pad = 3;
        c.activation = Activation::kSilu;
        check_all_kernels(c);
      }
    }
  }
}

TEST_CASE("gemm: extreme values") {
  for (size_t m : {1, 10}) {
    for (Activation activation : kActivations) {
      Case huge;  // products up to 1e30, pre-activations up to about 1e31
      huge.m = m;
      huge.n = 40;
      huge.k = 37;
      huge.x_range = 1e15f;
      huge.w_range = 1e15f;
      huge.activation = activation;
      check_all_kernels(huge);
      huge.type = DType::kBF16;
      check_all_kernels(huge);
      huge.type = DType::kI8;
      check_all_kernels(huge);

      Case tiny = huge;  // products around 1e-40: subnormal
      tiny.type = DType::kF32;
      tiny.x_range = 1e-20f;
      tiny.w_range = 1e-20f;
      check_all_kernels(tiny);

      Case wide = huge;  // x over 60 decades: heavy cancellation, z from 0 to 1e30
      wide.type = DType::kF32;
      wide.x_range = 1.0f;
      wide.w_range = 1.0f;
      wide.wide_exponents = true;
      check_all_kernels(wide);
      wide.type = DType::kF16;
      check_all_kernels(wide);
    }
  }
}

#if !defined(FOCAL_TESTS_BARE_METAL)  // firmware has no threads
TEST_CASE("gemm: bitwise identical for 1, 2 and 3 workers" * doctest::skip(focal::testing::kUnderEmulation)) {
  for (DType type : {DType::kF32, DType::kF16, DType::kI8}) {
    for (size_t m : {1, 3, 150}) {  // GEMV, GEMV with 3 rows, tiled over several row blocks
      Case c;
      c.m = m;
      c.n = 300;
      c.k = 300;
      c.type = type;
      c.activation = Activation::kGeluTanh;
      CAPTURE(describe(c));
      Instance in(c);
      std::vector<float> single;
      for (int workers : {1, 2, 3}) {
        CAPTURE(workers);
        ThreadPool pool(workers);
        in.clear_y();
        REQUIRE(gemm(in.params(), &pool).ok());
        std::vector<float> out(in.y(), in.y() + c.m * in.y_stride);
        if (workers == 1) {
          single = out;
        } else {
          CHECK(std::memcmp(single.data(), out.data(), single.size() * sizeof(float)) == 0);
        }
      }
    }
  }
}
#endif

TEST_CASE("gemm: invalid problems are refused with a message") {
  Case c;
  c.m = 3;
  c.n = 5;
  c.k = 7;
  Instance in(c);
  GemmParams p = in.params();
  CHECK(gemm(p).ok());
  p.k = 0;
  CHECK(std::string(gemm(p).message()).find("m, n and k") != std::string::npos);
  p = in.params();
  p.y = nullptr;
  CHECK(!gemm(p).ok());
  p = in.params();
  p.x_stride = 6;
  CHECK(std::string(gemm(p).message()).find("x_stride") != std::string::npos);
  p = in.params();
  p.packed_weights_bytes -= 1;
  CHECK(std::string(gemm(p).message()).find("packed_weights_bytes") != std::string::npos);
  p = in.params();
  p.weight_type = DType::kF16;  // the f32 buffer is large enough, but misaligned by 1
  p.packed_weights = in.packed.data() + 1;
  CHECK(!gemm(p).ok());
  p = in.params();
  p.y = const_cast<float*>(p.x) + 2;  // overlaps x
  CHECK(std::string(gemm(p).message()).find("overlap") != std::string::npos);
  p = in.params();
  p.activation = static_cast<Activation>(9);
  CHECK(!gemm(p).ok());
  p = in.params();
  p.weight_type = DType::kI32;
  CHECK(!gemm(p).ok());
  CHECK(std::string(gemm_isa()).size() > 0);
}

TEST_CASE("gemm: the weight types this engine runs") {
  CHECK(gemm_weights_built(DType::kF32));
  CHECK(gemm_weights_built(DType::kI8));
  CHECK(gemm_weights_built(DType::kF16) == gemm_weights_built(DType::kBF16));
  CHECK(!gemm_weights_built(DType::kI32));
  const bool half = gemm_weights_built(DType::kF16);
  MESSAGE("f16 and bf16 weights " << std::string(half ? "built" : "left out (FOCAL_HALF_WEIGHTS)"));
}
