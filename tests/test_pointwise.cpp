// The pointwise kernel families (normalization, softmax, elementwise, embedding,
// position, pooling, recurrent) on every instruction set this CPU has, and their
// reference twins, against double-precision computations: sizes across the vector
// widths (1, 3, 15, 16, 17, 31, 33, 100, 768), misaligned pointers, in place, strides,
// extreme values (+-1e4, +-88, 0, -inf, rows of equal values), guard zones around every
// output (nothing written outside), refused arguments, and a few values computed by
// PyTorch 1.13 (gate orders, rotary layouts, the sinusoidal table).
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
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "pointwise_dispatch.h"
#include "simd/vec_scalar.hpp"
#include "support/aligned_buffer.h"
#include "support/tiny_model.h"

using namespace focal;
using namespace focal::kernels;
using focal::testing::AlignedBuffer;

namespace {

constexpr size_t kWidths[] = {1, 3, 15, 16, 17, 31, 33, 100, 768};
constexpr double kU = 1.0 / 16777216.0;  // 2^-24
constexpr float kSentinel = 7777.0f;
constexpr size_t kGuard = 16;  // floats of guard zone on each side (64 bytes)
const float kInf = std::numeric_limits<float>::infinity();

std::vector<float> uniform(size_t n, uint32_t seed, float lo, float hi) {
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

bool same_bits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

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
std::vector<PointwiseKernels> kernel_sets() {
  PointwiseKernels sets[8];
  const int count = usable_pointwise_kernels(sets);
  return std::vector<PointwiseKernels>(sets, sets + count);
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

// ---------------------------------------------------------------------------------
// Normalization

enum class RowKind { kRandom, kOffset, kEqual, kZero };

const char* row_kind_name(RowKind k) {
  return k == RowKind::kRandom   ? "random"
         : k == RowKind::kOffset ? "offset"
         : k == RowKind::kEqual  ? "equal"
                                 : "zero";
}

// rows x width values in [-range, range]; kOffset adds 100 * range (|mean| >> std);
// kEqual makes each row one repeated value.
std::vector<float> norm_input(size_t rows, size_t width, RowKind kind, float range, uint32_t seed) {
  std::vector<float> x = uniform(rows * width, seed, -range, range);
  if (kind == RowKind::kOffset) {
    for (float& v : x) v += 100.0f * range;
  } else if (kind == RowKind::kEqual) {
    for (size_t r = 0; r < rows; ++r)
      std::fill(x.begin() + r * width, x.begin() + (r + 1) * width, x[r * width]);
  } else if (kind == RowKind::kZero) {
    std::fill(x.begin(), x.end(), 0.0f);
  }
  return x;
}

enum class NormOp { kLayerNorm, kRmsNorm, kL2 };

// want[i] and tolerance[i] for one op, in double.
void norm_double(NormOp op, const LayerNormParams& p, const std::vector<float>& x,
                 const std::vector<float>& gamma, const std::vector<float>& beta,
                 std::vector<double>* want, std::vector<double>* tol) {
  const size_t n = p.width;
  const double rel = 8 * kU * (std::sqrt(double(n)) + 2);
  want->assign(p.rows * n, 0.0);
  tol->assign(p.rows * n, 0.0);
  for (size_t r = 0; r < p.rows; ++r) {
    const float* xr = x.data() + r * n;
    double sum = 0, squares = 0;
    for (size_t i = 0; i < n; ++i) sum += xr[i];
    const double mean = sum / double(n);
    for (size_t i = 0; i < n; ++i)
      squares += op == NormOp::kLayerNorm ? (xr[i] - mean) * (xr[i] - mean) : double(xr[i]) * xr[i];
    for (size_t i = 0; i < n; ++i) {
      double& w = (*want)[r * n + i];
      double& t = (*tol)[r * n + i];
      if (op == NormOp::kLayerNorm) {
        const double z = (xr[i] - mean) / std::sqrt(squares / double(n) + double(p.epsilon));
        w = z * gamma[i] + beta[i];
        t = rel * (std::fabs(z) + 1) * std::fabs(gamma[i]) + 8 * kU * std::fabs(beta[i]) + 1e-30;
      } else if (op == NormOp::kRmsNorm) {
        w = xr[i] / std::sqrt(squares / double(n) + double(p.epsilon)) * gamma[i];
        t = rel * std::fabs(w) + 1e-30;
      } else {
        w = xr[i] / std::max(std::sqrt(squares), double(p.epsilon));
        t = rel * std::fabs(w) + 1e-30;
      }
    }
  }
}

void run_norm(NormOp op, const LayerNormParams& p, const Floats& x, const Floats& gamma,
              const Floats& beta, Floats& y, const PointwiseKernels* k) {
  if (k == nullptr) {
    if (op == NormOp::kLayerNorm)
      layernorm_f32_reference(p, x.data(), gamma.data(), beta.data(), y.data());
    if (op == NormOp::kRmsNorm) rmsnorm_f32_reference(p, x.data(), gamma.data(), y.data());
    if (op == NormOp::kL2) l2_normalize_f32_reference(p, x.data(), y.data());
    return;
  }
  if (op == NormOp::kLayerNorm) layernorm(p, x.data(), gamma.data(), beta.data(), y.data(), *k);
  if (op == NormOp::kRmsNorm) rmsnorm(p, x.data(), gamma.data(), y.data(), *k);
  if (op == NormOp::kL2) l2_normalize(p, x.data(), y.data(), *k);
}

void check_norm(NormOp op, const char* name, float epsilon) {
  CaseReport report(name);
  const auto sets = kernel_sets();
  uint32_t seed = 100;
  for (size_t width : kWidths) {
    for (RowKind kind : {RowKind::kRandom, RowKind::kOffset, RowKind::kEqual, RowKind::kZero}) {
      for (float range : {1.0f, 1e4f}) {
        for (size_t misalign : {size_t(0), size_t(1)}) {
          CAPTURE(width);
          CAPTURE(row_kind_name(kind));
          CAPTURE(range);
          CAPTURE(misalign);
          LayerNormParams p{3, width, epsilon};
          const std::vector<float> xv = norm_input(p.rows, width, kind, range, ++seed);
          const std::vector<float> gv = uniform(width, ++seed, 0.5f, 1.5f);
          const std::vector<float> bv = uniform(width, ++seed, -1.0f, 1.0f);
          std::vector<double> want, tol;
          norm_double(op, p, xv, gv, bv, &want, &tol);
          Floats x(xv, misalign), gamma(gv, misalign), beta(bv, 1 - misalign);
          // nullptr: the reference twin; then every ISA, out of place and in place.
          std::vector<const PointwiseKernels*> runs = {nullptr};
          for (const auto& k : sets) runs.push_back(&k);
          for (const PointwiseKernels* k : runs) {
            CAPTURE(std::string(k != nullptr ? k->isa : "reference"));
            for (bool in_place : {false, true}) {
              CAPTURE(in_place);
              Floats out(p.rows * width, misalign);
              Floats& y = in_place ? x : out;
              if (in_place) x.assign(xv);
              run_norm(op, p, x, gamma, beta, y, k);
              Worst w;
              for (size_t i = 0; i < y.size(); ++i) w.add(i, y[i], want[i], tol[i]);
              CHECK_MESSAGE(w.ratio <= 1.0, w.str());
              CHECK(y.guards_intact());
              report.take(w);
            }
            x.assign(xv);
          }
        }
      }
    }
  }
}

TEST_CASE("pointwise: layernorm (corrected two-pass) on every ISA") {
  check_norm(NormOp::kLayerNorm, "layernorm", 1e-5f);
}

TEST_CASE("pointwise: rmsnorm on every ISA") { check_norm(NormOp::kRmsNorm, "rmsnorm", 1e-6f); }

TEST_CASE("pointwise: l2-normalize on every ISA") {
  check_norm(NormOp::kL2, "l2_normalize", 1e-12f);
}

TEST_CASE("pointwise: layernorm of equal rows gives beta, where the plain two-pass does not") {
  // 768 copies of one value within +-1e4: the plain two-pass mean is off by a few ulp,
  // which 1 / sqrt(var + 1e-5) amplifies to outputs of order 1 (measured up to 0.9996).
  const size_t width = 768, rows = 64;
  std::vector<float> xv = uniform(rows, 7, -1e4f, 1e4f), x(rows * width);
  for (size_t r = 0; r < rows; ++r)
    std::fill(x.begin() + r * width, x.begin() + (r + 1) * width, xv[r]);
  const std::vector<float> gamma(width, 1.0f), beta(width, 0.0f);
  float largest = 0.0f;
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    std::vector<float> y(rows * width, NAN);
    layernorm(LayerNormParams{rows, width, 1e-5f}, x.data(), gamma.data(), beta.data(), y.data(),
              k);
    float worst = 0.0f;
    for (float v : y) worst = std::max(worst, std::fabs(v));
    CHECK(worst <= 1e-6f);
    largest = std::max(largest, worst);
  }
  // The plain two-pass form on the same rows, for contrast.
  float plain = 0.0f;
  for (size_t r = 0; r < rows; ++r) {
    float mean = 0.0f, variance = 0.0f;
    for (size_t i = 0; i < width; ++i) mean += x[r * width + i];
    mean /= float(width);
    for (size_t i = 0; i < width; ++i)
      variance += (x[r * width + i] - mean) * (x[r * width + i] - mean);
    variance /= float(width);
    plain = std::max(plain, std::fabs((xv[r] - mean) / std::sqrt(variance + 1e-5f)));
  }
  CHECK(plain > 0.1f);
  MESSAGE("layernorm of equal rows: largest |y - beta| " << largest << "; plain two-pass "
                                                         << plain);
}

// ---------------------------------------------------------------------------------
// Softmax

TEST_CASE("pointwise: softmax with -inf entries, all -inf and equal rows, extreme logits") {
  CaseReport report("softmax");
  const auto sets = kernel_sets();
  uint32_t seed = 200;
  const size_t rows = 5;
  for (size_t width : kWidths) {
    for (float range : {1.0f, 10.0f, 88.0f, 1e4f}) {
      for (size_t misalign : {size_t(0), size_t(1)}) {
        CAPTURE(width);
        CAPTURE(range);
        CAPTURE(misalign);
        std::vector<float> xv = uniform(rows * width, ++seed, -range, range);
        // row 0: random; row 1: every third entry -inf; row 2: all -inf; row 3: all
        // equal; row 4: one finite entry among -inf (the last).
        for (size_t i = 0; i < width; i += 3) xv[width + i] = -kInf;
        std::fill(xv.begin() + 2 * width, xv.begin() + 3 * width, -kInf);
        std::fill(xv.begin() + 3 * width, xv.begin() + 4 * width, xv[3 * width]);
        std::fill(xv.begin() + 4 * width, xv.begin() + 5 * width - 1, -kInf);
        std::vector<double> want(rows * width), tol(rows * width);
        for (size_t r = 0; r < rows; ++r) {
          const float* xr = xv.data() + r * width;
          double max = -INFINITY, sum = 0;
          for (size_t i = 0; i < width; ++i) max = std::max(max, double(xr[i]));
          for (size_t i = 0; i < width; ++i)
            sum += max == -INFINITY ? 0.0 : std::exp(double(xr[i]) - max);
          for (size_t i = 0; i < width; ++i) {
            const double e = max == -INFINITY ? 0.0 : std::exp(double(xr[i]) - max);
            want[r * width + i] = sum > 0 ? e / sum : 0.0;
            const double gap = std::isinf(xr[i]) ? 0.0 : std::fabs(double(xr[i]) - max);
            tol[r * width + i] =
                kU * (4 * gap + 8 * (std::sqrt(double(width)) + 2)) * want[r * width + i] + 1e-37;
          }
        }
        Floats x(xv, misalign);
        std::vector<const PointwiseKernels*> runs = {nullptr};
        for (const auto& k : sets) runs.push_back(&k);
        for (const PointwiseKernels* k : runs) {
          CAPTURE(std::string(k != nullptr ? k->isa : "reference"));
          for (bool in_place : {false, true}) {
            CAPTURE(in_place);
            x.assign(xv);
            Floats out(rows * width, 1 - misalign);
            Floats& y = in_place ? x : out;
            if (k == nullptr) {
              softmax_f32_reference(rows, width, x.data(), y.data());
            } else {
              softmax(rows, width, x.data(), y.data(), *k);
            }
            Worst w;
            for (size_t i = 0; i < y.size(); ++i) w.add(i, y[i], want[i], tol[i]);
            CHECK_MESSAGE(w.ratio <= 1.0, w.str());
            CHECK(y.guards_intact());
            // -inf entries are exactly 0, the all -inf row too.
            bool exact_zeros = true;
            for (size_t i = 0; i < rows * width; ++i) {
              if (xv[i] == -kInf && !same_bits(y[i], 0.0f)) exact_zeros = false;
            }
            CHECK(exact_zeros);
            report.take(w);
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// Elementwise: residual add, SwiGLU, GeGLU

TEST_CASE("pointwise: residual add is exact, misaligned and in place") {
  uint32_t seed = 300;
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (size_t n : kWidths) {
      for (size_t misalign : {size_t(0), size_t(1)}) {
        CAPTURE(n);
        CAPTURE(misalign);
        const std::vector<float> av = uniform(n, ++seed, -1e4f, 1e4f),
                                 bv = uniform(n, ++seed, -1.0f, 1.0f);
        Floats a(av, misalign), b(bv, 1 - misalign), y(n, misalign);
        residual_add(n, a.data(), b.data(), y.data(), k);
        bool exact = true;
        for (size_t i = 0; i < n; ++i) exact = exact && same_bits(y[i], av[i] + bv[i]);
        CHECK(exact);
        CHECK(y.guards_intact());
        residual_add(n, a.data(), b.data(), a.data(), k);  // in place: a += b
        for (size_t i = 0; i < n; ++i) exact = exact && same_bits(a[i], av[i] + bv[i]);
        CHECK(exact);
        CHECK(a.guards_intact());
      }
    }
  }
}

enum class Gate { kSwiglu, kGegluErf, kGegluTanh };

const char* gate_name(Gate g) {
  return g == Gate::kSwiglu ? "swiglu" : g == Gate::kGegluErf ? "geglu_erf" : "geglu_tanh";
}

double activation_double(Gate g, double a) {
  if (g == Gate::kSwiglu) return a / (1.0 + std::exp(-a));
  if (g == Gate::kGegluErf) return 0.5 * a * (1.0 + std::erf(a / std::sqrt(2.0)));
  return 0.5 * a *
         (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (a + 0.044715 * a * a * a)));
}

void run_gate(Gate g, const GatedParams& p, const float* a, const float* b, float* y,
              const PointwiseKernels* k) {
  if (k == nullptr) {
    if (g == Gate::kSwiglu) swiglu_f32_reference(p, a, b, y);
    if (g == Gate::kGegluErf) geglu_f32_reference(p, GeluForm::kErf, a, b, y);
    if (g == Gate::kGegluTanh) geglu_f32_reference(p, GeluForm::kTanh, a, b, y);
    return;
  }
  if (g == Gate::kSwiglu) swiglu(p, a, b, y, *k);
  if (g == Gate::kGegluErf) geglu(p, GeluForm::kErf, a, b, y, *k);
  if (g == Gate::kGegluTanh) geglu(p, GeluForm::kTanh, a, b, y, *k);
}

// The layouts of elementwise.h: two inputs; one [rows, 2 * width] buffer with the
// activation on the first half (y written over it) or on the second half.
enum class GateLayout { kTwoInputs, kActFirstHalf, kActSecondHalf };

void check_gate(Gate gate) {
  CaseReport report(gate_name(gate));
  const auto sets = kernel_sets();
  uint32_t seed = 400;
  const size_t rows = 3;
  for (size_t width : kWidths) {
    for (float range : {4.0f, 88.0f, 1e4f}) {
      for (GateLayout layout :
           {GateLayout::kTwoInputs, GateLayout::kActFirstHalf, GateLayout::kActSecondHalf}) {
        const size_t misalign = (width + seed) % 2;
        CAPTURE(width);
        CAPTURE(range);
        CAPTURE(int(layout));
        CAPTURE(misalign);
        const std::vector<float> hv = uniform(rows * 2 * width, ++seed, -range, range);
        std::vector<double> want(rows * width), tol(rows * width);
        const bool split = layout != GateLayout::kTwoInputs;
        const size_t a_off = layout == GateLayout::kActSecondHalf ? width : 0;
        const size_t b_off = layout == GateLayout::kActSecondHalf ? 0 : width;
        // Two inputs: a = hv[0, rows * width), b = hv[rows * width, ...).
        for (size_t r = 0; r < rows; ++r) {
          for (size_t i = 0; i < width; ++i) {
            const double a = split ? hv[r * 2 * width + a_off + i] : hv[r * width + i];
            const double b = split ? hv[r * 2 * width + b_off + i] : hv[(rows + r) * width + i];
            const double act = activation_double(gate, a);
            want[r * width + i] = act * b;
            const double cancel = gate == Gate::kSwiglu ? 0.0 : std::fabs(a);
            tol[r * width + i] = 8 * kU * (std::fabs(act) + cancel) * std::fabs(b) + 1e-30;
          }
        }
        std::vector<const PointwiseKernels*> runs = {nullptr};
        for (const auto& k : sets) runs.push_back(&k);
        for (const PointwiseKernels* k : runs) {
          CAPTURE(std::string(k != nullptr ? k->isa : "reference"));
          Floats h(hv, misalign);
          Floats out(rows * width, 1 - misalign);
          GatedParams p{rows, width, 0, 0, 0};
          Worst w;
          if (!split) {
            run_gate(gate, p, h.data(), h.data() + rows * width, out.data(), k);
            for (size_t i = 0; i < out.size(); ++i) w.add(i, out[i], want[i], tol[i]);
            CHECK(out.guards_intact());
          } else {
            p.a_stride = p.b_stride = p.y_stride = 2 * width;
            float* y = h.data() + a_off;  // over the activation's half
            run_gate(gate, p, h.data() + a_off, h.data() + b_off, y, k);
            for (size_t r = 0; r < rows; ++r) {
              for (size_t i = 0; i < width; ++i)
                w.add(r * width + i, y[r * 2 * width + i], want[r * width + i], tol[r * width + i]);
            }
            bool other_half_intact = true;
            for (size_t r = 0; r < rows; ++r) {
              for (size_t i = 0; i < width; ++i) {
                other_half_intact = other_half_intact && same_bits(h[r * 2 * width + b_off + i],
                                                                   hv[r * 2 * width + b_off + i]);
              }
            }
            CHECK(other_half_intact);
            CHECK(h.guards_intact());
          }
          CHECK_MESSAGE(w.ratio <= 1.0, w.str());
          report.take(w);
        }
      }
    }
  }
}

TEST_CASE("pointwise: swiglu, two inputs and split halves") { check_gate(Gate::kSwiglu); }
TEST_CASE("pointwise: geglu (erf), two inputs and split halves") { check_gate(Gate::kGegluErf); }
TEST_CASE("pointwise: geglu (tanh), two inputs and split halves") { check_gate(Gate::kGegluTanh); }

TEST_CASE("pointwise: activations at the edges of their range") {
  // Exactly representable or saturated values every ISA must get right.
  const std::vector<float> a = {0.0f,   -0.0f, 1e4f,   -1e4f, 88.0f, -88.0f, 89.0f, -89.0f, 1e30f,
                                -1e30f, 20.0f, -20.0f, 0.5f,  -0.5f, 3.0f,   -3.0f, 1e-20f};
  const std::vector<float> ones(a.size(), 1.0f);
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (Gate g : {Gate::kSwiglu, Gate::kGegluErf, Gate::kGegluTanh}) {
      CAPTURE(gate_name(g));
      std::vector<float> y(a.size(), NAN);
      GatedParams p{1, a.size(), 0, 0, 0};
      run_gate(g, p, a.data(), ones.data(), y.data(), &k);
      for (size_t i = 0; i < a.size(); ++i) {
        CAPTURE(a[i]);
        const double want = activation_double(g, a[i]);
        CHECK(std::isfinite(y[i]));
        CHECK(std::fabs(y[i] - want) <=
              8 * kU * (std::fabs(want) + (g == Gate::kSwiglu ? 0.0 : std::fabs(a[i]))) + 1e-30);
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// Embedding gather

uint16_t float_to_half(float f) {  // round to nearest even; test values are in half range
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exponent = int32_t((x >> 23) & 0xFF) - 127 + 15;
  const uint32_t mantissa = x & 0x7FFFFFu;
  if (exponent <= 0) return static_cast<uint16_t>(sign);
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(half);
}

TEST_CASE("pointwise: embedding gather, f32 and f16 tables, scaled, exact") {
  uint32_t seed = 500;
  const size_t vocab = 37;
  const std::vector<int32_t> ids = {0, 36, 5, 5, 17, 1, 35, 0, 22};
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (size_t dim : kWidths) {
      for (EmbeddingType type : {EmbeddingType::kF32, EmbeddingType::kF16}) {
        for (float scale : {1.0f, std::sqrt(float(dim)), -0.5f}) {
          CAPTURE(dim);
          CAPTURE(int(type));
          CAPTURE(scale);
          const std::vector<float> values = uniform(vocab * dim, ++seed, -3.0f, 3.0f);
          std::vector<uint16_t> halves(values.size());
          std::vector<float> table(values.size());
          for (size_t i = 0; i < values.size(); ++i) {
            halves[i] = float_to_half(values[i]);
            table[i] = type == EmbeddingType::kF16 ? simd::half_to_float(halves[i]) : values[i];
          }
          Floats out(ids.size() * dim, seed % 2), ref(ids.size() * dim);
          EmbeddingParams p;
          p.count = ids.size();
          p.dim = dim;
          p.vocab = vocab;
          p.type = type;
          p.table =
              type == EmbeddingType::kF16 ? static_cast<const void*>(halves.data()) : table.data();
          p.ids = ids.data();
          p.scale = scale;
          p.out = out.data();
          REQUIRE(embedding_gather(p, k).ok());
          p.out = ref.data();
          embedding_gather_reference(p);
          bool exact = true, matches_reference = true;
          for (size_t t = 0; t < ids.size(); ++t) {
            for (size_t i = 0; i < dim; ++i) {
              // One rounding of the exact product: the double product rounded to f32.
              const float want =
                  static_cast<float>(double(table[size_t(ids[t]) * dim + i]) * scale);
              exact = exact && same_bits(out[t * dim + i], want);
              matches_reference = matches_reference && same_bits(ref[t * dim + i], want);
            }
          }
          CHECK(exact);
          CHECK(matches_reference);
          CHECK(out.guards_intact());
        }
      }
    }
  }
}

TEST_CASE("pointwise: embedding gather refuses out-of-range ids before writing anything") {
  const size_t vocab = 10, dim = 4;
  const std::vector<float> table(vocab * dim, 1.0f);
  struct Bad {
    std::vector<int32_t> ids;
    const char* message;
  };
  const Bad cases[] = {
      {{1, 2, -1, 3}, "embedding: ids[2] = -1 outside the vocabulary 0..9"},
      {{10}, "embedding: ids[0] = 10 outside the vocabulary 0..9"},
      {{0, 9, 9, 0, std::numeric_limits<int32_t>::min()},
       "embedding: ids[4] = -2147483648 outside the vocabulary 0..9"},
      {{0, std::numeric_limits<int32_t>::max()},
       "embedding: ids[1] = 2147483647 outside the vocabulary 0..9"},
  };
  for (const Bad& bad : cases) {
    Floats out(bad.ids.size() * dim);
    EmbeddingParams p;
    p.count = bad.ids.size();
    p.dim = dim;
    p.vocab = vocab;
    p.table = table.data();
    p.ids = bad.ids.data();
    p.out = out.data();
    const Status status = embedding_gather(p);
    CHECK(status.code() == StatusCode::kOutOfRange);
    CHECK(std::string(status.message()) == bad.message);
    bool untouched = true;
    for (size_t i = 0; i < out.size(); ++i) untouched = untouched && same_bits(out[i], kSentinel);
    CHECK(untouched);
  }
  EmbeddingParams p;
  p.count = 1;
  p.dim = dim;
  p.vocab = vocab;
  p.table = table.data();
  const int32_t id = 0;
  p.ids = &id;
  CHECK(embedding_gather(p).code() == StatusCode::kInvalidArgument);  // null out
  float out[dim];
  p.out = out;
  p.vocab = 0;
  CHECK(embedding_gather(p).code() == StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------------
// Rotary position embedding

struct RopeCase {
  size_t batch, seq, heads, head_dim, rotary_dim;
  RopeLayout layout;
  int64_t offset;
  bool positions;   // explicit positions instead of the offset
  size_t head_pad;  // floats between heads (a stride)
  float range;
};

std::string describe(const RopeCase& c) {
  return "b" + std::to_string(c.batch) + " s" + std::to_string(c.seq) + " h" +
         std::to_string(c.heads) + " d" + std::to_string(c.head_dim) + " r" +
         std::to_string(c.rotary_dim) +
         (c.layout == RopeLayout::kHalfSplit ? " half-split" : " interleaved") + " offset" +
         std::to_string(c.offset) + (c.positions ? " positions" : "") + " pad" +
         std::to_string(c.head_pad) + " range" + std::to_string(c.range);
}

void check_rope_case(const RopeCase& c, const std::vector<PointwiseKernels>& sets, uint32_t seed,
                     CaseReport& report) {
  CAPTURE(describe(c));
  const size_t head_stride = c.head_dim + c.head_pad;
  const size_t total = c.batch * c.seq * c.heads * head_stride;
  const std::vector<float> xv = uniform(total, seed, -c.range, c.range);
  std::vector<int32_t> positions(c.batch * c.seq);
  for (size_t i = 0; i < positions.size(); ++i)
    positions[i] = int32_t((i * 7919 + seed * 31) % 1000003);
  RopeParams p;
  p.batch = c.batch;
  p.seq = c.seq;
  p.heads = c.heads;
  p.head_dim = c.head_dim;
  p.rotary_dim = c.rotary_dim;
  p.layout = c.layout;
  p.position_offset = c.offset;
  if (c.positions) p.positions = positions.data();
  p.head_stride = head_stride;
  // The double computation on the documented f32 angles.
  const size_t rotary = c.rotary_dim != 0 ? c.rotary_dim : c.head_dim, half = rotary / 2;
  std::vector<double> want(total), tol(total);
  for (size_t i = 0; i < total; ++i) want[i] = xv[i];  // pass-through dims and gaps
  std::fill(tol.begin(), tol.end(), 1e-30);
  for (size_t b = 0; b < c.batch; ++b) {
    for (size_t s = 0; s < c.seq; ++s) {
      const float position =
          c.positions ? float(positions[b * c.seq + s]) : float(c.offset + int64_t(s));
      for (size_t h = 0; h < c.heads; ++h) {
        const size_t base = ((b * c.seq + s) * c.heads + h) * head_stride;
        for (size_t k = 0; k < half; ++k) {
          const float angle = position * rope_inv_frequency(p.theta, k, rotary);
          const double co = std::cos(double(angle)), si = std::sin(double(angle));
          const size_t i = c.layout == RopeLayout::kHalfSplit ? k : 2 * k;
          const size_t j = c.layout == RopeLayout::kHalfSplit ? k + half : 2 * k + 1;
          const double xi = xv[base + i], xj = xv[base + j];
          want[base + i] = xi * co - xj * si;
          want[base + j] = xj * co + xi * si;
          tol[base + i] = tol[base + j] = 8 * kU * (std::fabs(xi) + std::fabs(xj)) + 1e-30;
        }
      }
    }
  }
  std::vector<const PointwiseKernels*> runs = {nullptr};
  for (const auto& k : sets) runs.push_back(&k);
  for (const PointwiseKernels* k : runs) {
    CAPTURE(std::string(k != nullptr ? k->isa : "reference"));
    for (bool in_place : {false, true}) {
      CAPTURE(in_place);
      Floats x(xv, seed % 2), out(total, (seed + 1) % 2);
      if (!in_place) {  // gaps between heads hold what was there before: the input's
        for (size_t i = 0; i < total; ++i) out[i] = xv[i];
        for (size_t b = 0; b < c.batch * c.seq * c.heads; ++b) {
          for (size_t i = 0; i < c.head_dim; ++i) out[b * head_stride + i] = NAN;
        }
      }
      p.x = x.data();
      p.y = in_place ? x.data() : out.data();
      if (k == nullptr) {
        rope_reference(p);
      } else {
        const Status status = rope(p, *k);
        REQUIRE_MESSAGE(status.ok(), status.message());
      }
      const Floats& y = in_place ? x : out;
      Worst w;
      for (size_t i = 0; i < total; ++i) w.add(i, y[i], want[i], tol[i]);
      CHECK_MESSAGE(w.ratio <= 1.0, w.str());
      CHECK(y.guards_intact());
      report.take(w);
    }
  }
}

TEST_CASE(
    "pointwise: rope, half-split and interleaved, offsets, positions, partial rotary, strides") {
  CaseReport report("rope");
  const auto sets = kernel_sets();
  uint32_t seed = 600;
  // Rotary dims whose lane counts (r / 2 half-split, r interleaved) cross the vector
  // widths and the 64-lane chunks.
  const size_t rotary_dims[] = {2, 6, 30, 32, 34, 62, 66, 128, 200, 256};
  for (RopeLayout layout : {RopeLayout::kHalfSplit, RopeLayout::kInterleaved}) {
    for (size_t r : rotary_dims) {
      check_rope_case({2, 3, 2, r, 0, layout, 0, false, 0, 1.0f}, sets, ++seed, report);
      check_rope_case({1, 2, 3, r, 0, layout, 4093, false, 3, 1e4f}, sets, ++seed, report);
    }
    // Partial rotary (GPT-J: 64 of 256; NeoX rotary_pct 0.25 of 128), odd head dims.
    check_rope_case({1, 3, 2, 256, 64, layout, 7, false, 0, 1.0f}, sets, ++seed, report);
    check_rope_case({2, 2, 2, 128, 32, layout, 0, false, 1, 1.0f}, sets, ++seed, report);
    check_rope_case({1, 2, 2, 33, 16, layout, 100, false, 0, 1.0f}, sets, ++seed, report);
    // Explicit positions up to 10^6 (angles up to 10^6 rad: large-argument reduction).
    check_rope_case({3, 4, 1, 64, 0, layout, 0, true, 0, 1.0f}, sets, ++seed, report);
    check_rope_case({1, 1, 8, 96, 0, layout, 123456, false, 0, 88.0f}, sets, ++seed, report);
  }
}

TEST_CASE("pointwise: rope and the sinusoidal table match PyTorch") {
  // Computed by PyTorch 1.13 (f32), as HF transformers' Llama (rotate_half) and GPT-J
  // (rotate_every_two) apply rotary embeddings, and the Annotated Transformer's
  // PositionalEncoding:
  //   inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
  //   freqs = torch.outer(torch.arange(5, 8).float(), inv_freq)
  //   x = (torch.arange(24).float().reshape(3, 8) - 11.5) / 7
  //   half-split: x * cat(freqs, freqs).cos() + rotate_half(x) * cat(freqs, freqs).sin()
  //   interleaved: x * repeat_interleave(freqs.cos(), 2) + rotate_every_two(x) * ...sin()
  //   pe[:, 0::2] = sin(position * div_term), pe[:, 1::2] = cos(position * div_term),
  //   div_term = exp(arange(0, 6, 2) * -(log(10000) / 6)), positions 0..3
  const float inv_freq[] = {1.0f, 0.100000001f, 0.00999999978f, 0.00100000005f};
  const float y_half[] = {
      -1.49343538f,  -0.871192932f,  -1.31617737f,  -1.21105635f,  1.27145195f,   -1.5340364f,
      -0.852561235f, -0.648920536f,  -0.460126877f, -0.415757537f, -0.23531583f,  -0.0744272694f,
      0.208291337f,  -0.0248004049f, 0.343650788f,  0.499562442f,  -0.313117981f, -0.273347914f,
      0.821383119f,  1.05990243f,    1.33780134f,   1.54417109f,   1.56127346f,   1.65031683f};
  const float y_inter[] = {
      -1.90440297f,  1.14988232f,   -0.608845294f, -1.71628487f,  -1.02368033f,   -0.980960071f,
      -0.782490194f, -0.646777689f, -0.579876363f, -0.203210205f, -0.136526018f,  -0.179947376f,
      0.0584506169f, 0.218183264f,  0.354136437f,  0.502133846f,  -0.0315523148f, 1.01470029f,
      0.0199774504f, 1.41767585f,   1.11638951f,   1.43874979f,   1.4884634f,     1.65331686f};
  const float pe[] = {0.0f,           1.0f,           0.0f,           1.0f,          0.0f,
                      1.0f,           0.841470957f,   0.540302336f,   0.0463992245f, 0.998922944f,
                      0.00215443317f, 0.999997675f,   0.909297407f,   -0.416146845f, 0.0926984996f,
                      0.99569422f,    0.00430885609f, 0.999990702f,   0.141120002f,  -0.989992499f,
                      0.138798088f,   0.990320683f,   0.00646325899f, 0.999979138f};
  for (size_t k = 0; k < 4; ++k) CHECK(same_bits(rope_inv_frequency(10000.0f, k, 8), inv_freq[k]));
  std::vector<float> x(24);
  for (size_t i = 0; i < 24; ++i) x[i] = (float(i) - 11.5f) / 7.0f;
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (RopeLayout layout : {RopeLayout::kHalfSplit, RopeLayout::kInterleaved}) {
      std::vector<float> y(24);
      RopeParams p;
      p.seq = 3;
      p.head_dim = 8;
      p.layout = layout;
      p.position_offset = 5;
      p.x = x.data();
      p.y = y.data();
      REQUIRE(rope(p, k).ok());
      const float* want = layout == RopeLayout::kHalfSplit ? y_half : y_inter;
      for (size_t i = 0; i < 24; ++i) CHECK(std::fabs(y[i] - want[i]) <= 1e-6f);
    }
    std::vector<float> table(24);
    SinusoidParams s;
    s.positions = 4;
    s.dim = 6;
    s.out = table.data();
    REQUIRE(sinusoidal_encoding(s, k).ok());
    for (size_t i = 0; i < 24; ++i) CHECK(std::fabs(table[i] - pe[i]) <= 1e-6f);
  }
}

TEST_CASE("pointwise: rope refuses bad parameters") {
  float x[8] = {};
  RopeParams p;
  p.seq = 1;
  p.head_dim = 8;
  p.x = x;
  p.y = x;
  CHECK(rope(p).ok());
  p.rotary_dim = 3;
  CHECK(std::string(rope(p).message()) == "rope: rotary_dim 3 must be even and at most head_dim 8");
  p.rotary_dim = 10;
  CHECK(rope(p).code() == StatusCode::kInvalidArgument);
  p.rotary_dim = 0;
  p.theta = 0.0f;
  CHECK(rope(p).code() == StatusCode::kInvalidArgument);
  p.theta = NAN;
  CHECK(rope(p).code() == StatusCode::kInvalidArgument);
  p.theta = 10000.0f;
  p.y = nullptr;
  CHECK(rope(p).code() == StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------------
// Sinusoidal position encoding

TEST_CASE("pointwise: sinusoidal encoding, both layouts and spacings, offsets, accumulate") {
  CaseReport report("sinusoid");
  const auto sets = kernel_sets();
  uint32_t seed = 700;
  for (size_t dim : kWidths) {
    for (SinusoidLayout layout : {SinusoidLayout::kInterleaved, SinusoidLayout::kConcatenated}) {
      for (TimescaleSpacing spacing :
           {TimescaleSpacing::kVaswani, TimescaleSpacing::kTensor2Tensor}) {
        for (int64_t offset : {int64_t(0), int64_t(1000)}) {
          for (bool accumulate : {false, true}) {
            CAPTURE(dim);
            CAPTURE(int(layout));
            CAPTURE(int(spacing));
            CAPTURE(offset);
            CAPTURE(accumulate);
            SinusoidParams p;
            p.batch = 2;
            p.positions = 5;
            p.dim = dim;
            p.position_offset = offset;
            p.layout = layout;
            p.spacing = spacing;
            p.accumulate = accumulate;
            if (spacing == TimescaleSpacing::kTensor2Tensor) p.max_timescale = 1e5f;
            const size_t total = p.batch * p.positions * dim;
            const std::vector<float> base = uniform(total, ++seed, -2.0f, 2.0f);
            std::vector<double> want(total), tol(total);
            const size_t half = dim / 2;
            for (size_t b = 0; b < p.batch; ++b) {
              for (size_t r = 0; r < p.positions; ++r) {
                const size_t row = (b * p.positions + r) * dim;
                for (size_t i = 0; i < dim; ++i) want[row + i] = accumulate ? base[row + i] : 0.0;
                for (size_t i = 0; i < half; ++i) {
                  const float angle = float(offset + int64_t(r)) * sinusoid_inv_timescale(p, i);
                  const size_t si = layout == SinusoidLayout::kInterleaved ? 2 * i : i;
                  const size_t ci = layout == SinusoidLayout::kInterleaved ? 2 * i + 1 : half + i;
                  want[row + si] += std::sin(double(angle));
                  want[row + ci] += std::cos(double(angle));
                }
                for (size_t i = 0; i < dim; ++i)
                  tol[row + i] = 8 * kU * (1 + std::fabs(want[row + i])) + 1e-30;
              }
            }
            std::vector<const PointwiseKernels*> runs = {nullptr};
            for (const auto& k : sets) runs.push_back(&k);
            for (const PointwiseKernels* k : runs) {
              CAPTURE(std::string(k != nullptr ? k->isa : "reference"));
              Floats out(base, seed % 2);
              if (!accumulate) out.fill(NAN);
              p.out = out.data();
              if (k == nullptr) {
                sinusoid_reference(p);
              } else {
                REQUIRE(sinusoidal_encoding(p, *k).ok());
              }
              Worst w;
              for (size_t i = 0; i < total; ++i) w.add(i, out[i], want[i], tol[i]);
              CHECK_MESSAGE(w.ratio <= 1.0, w.str());
              CHECK(out.guards_intact());
              report.take(w);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("pointwise: sinusoidal timescales") {
  SinusoidParams p;
  p.dim = 512;
  // Vaswani: 1 / 10000^(2i / dim); tensor2tensor: the last timescale is exactly max.
  CHECK(sinusoid_inv_timescale(p, 0) == 1.0f);
  CHECK(sinusoid_inv_timescale(p, 128) == doctest::Approx(0.01).epsilon(1e-6));
  p.spacing = TimescaleSpacing::kTensor2Tensor;
  CHECK(sinusoid_inv_timescale(p, 255) == doctest::Approx(1e-4).epsilon(1e-6));
  p.min_timescale = 2.0f;  // 1 / min_timescale first (timescales from min to max)
  CHECK(sinusoid_inv_timescale(p, 0) == 0.5f);
  SinusoidParams bad;
  bad.positions = 1;
  bad.dim = 4;
  float out[4];
  bad.out = out;
  CHECK(sinusoidal_encoding(bad).ok());
  bad.min_timescale = 0.0f;
  CHECK(sinusoidal_encoding(bad).code() == StatusCode::kInvalidArgument);
  bad.min_timescale = 1.0f;
  bad.max_timescale = INFINITY;
  CHECK(sinusoidal_encoding(bad).code() == StatusCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------------
// Pooling

TEST_CASE("pointwise: masked mean pooling and CLS pooling") {
  CaseReport report("mean_pool");
  uint32_t seed = 800;
  const size_t batch = 4, seq = 7;
  const int32_t lengths[batch] = {7, 0, 3, 1};
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    for (size_t dim : kWidths) {
      for (float range : {1.0f, 1e4f}) {
        for (bool masked : {true, false}) {
          CAPTURE(dim);
          CAPTURE(range);
          CAPTURE(masked);
          std::vector<float> xv = uniform(batch * seq * dim, ++seed, -range, range);
          if (masked) {  // positions past a row's length hold NaN: never read
            for (size_t b = 0; b < batch; ++b) {
              std::fill(xv.begin() + std::ptrdiff_t((b * seq + size_t(lengths[b])) * dim),
                        xv.begin() + std::ptrdiff_t((b + 1) * seq * dim), NAN);
            }
          }
          Floats x(xv, seed % 2), out(batch * dim, (seed + 1) % 2), ref(batch * dim);
          PoolParams p;
          p.batch = batch;
          p.seq = seq;
          p.dim = dim;
          p.x = x.data();
          p.lengths = masked ? lengths : nullptr;
          p.out = out.data();
          REQUIRE(mean_pool(p, k).ok());
          p.out = ref.data();
          mean_pool_reference(p);
          Worst w;
          std::string mismatch;
          for (size_t b = 0; b < batch; ++b) {
            const size_t length = masked ? size_t(lengths[b]) : seq;
            for (size_t i = 0; i < dim; ++i) {
              double sum = 0, magnitude = 0;
              for (size_t s = 0; s < length; ++s) {
                sum += xv[(b * seq + s) * dim + i];
                magnitude += std::fabs(xv[(b * seq + s) * dim + i]);
              }
              const double want = length != 0 ? sum / double(length) : 0.0;
              const double tol =
                  4 * kU * (double(length) + 1) * (length != 0 ? magnitude / double(length) : 0.0) +
                  1e-30;
              w.add(b * dim + i, out[b * dim + i], want, tol);
              if (mismatch.empty() && !same_bits(out[b * dim + i], ref[b * dim + i])) {
                mismatch = "[" + std::to_string(b) + ", " + std::to_string(i) + "]: kernel " +
                           std::to_string(out[b * dim + i]) + ", reference " +
                           std::to_string(ref[b * dim + i]);
              }
            }
          }
          CHECK_MESSAGE(w.ratio <= 1.0, w.str());
          CHECK_MESSAGE(mismatch.empty(), "not bitwise the reference's at " << mismatch);
          CHECK(out.guards_intact());
          report.take(w);

          Floats cls(batch * dim, 1);
          p.out = cls.data();
          cls_pool(p, k);
          bool exact = true;
          for (size_t b = 0; b < batch; ++b) {
            for (size_t i = 0; i < dim; ++i)
              exact = exact && same_bits(cls[b * dim + i], xv[b * seq * dim + i]);
          }
          CHECK(exact);
          CHECK(cls.guards_intact());
        }
      }
    }
  }
}

TEST_CASE("pointwise: mean pooling refuses lengths outside 0..seq") {
  const std::vector<float> x(2 * 3 * 4, 1.0f);
  Floats out(2 * 4);
  PoolParams p;
  p.batch = 2;
  p.seq = 3;
  p.dim = 4;
  p.x = x.data();
  p.out = out.data();
  const int32_t too_long[] = {3, 4}, negative[] = {-1, 2}, good[] = {3, 0};
  p.lengths = too_long;
  Status status = mean_pool(p);
  CHECK(status.code() == StatusCode::kOutOfRange);
  CHECK(std::string(status.message()) == "mean_pool: lengths[1] = 4 outside 0..seq (3)");
  p.lengths = negative;
  status = mean_pool(p);
  CHECK(std::string(status.message()) == "mean_pool: lengths[0] = -1 outside 0..seq (3)");
  bool untouched = true;
  for (size_t i = 0; i < out.size(); ++i) untouched = untouched && same_bits(out[i], kSentinel);
  CHECK(untouched);
  p.lengths = good;
  CHECK(mean_pool(p).ok());
  CHECK(out[0] == 1.0f);
  CHECK(same_bits(out[4], 0.0f));
}

// ---------------------------------------------------------------------------------
// LSTM and GRU cells

// A value and a first-order bound on its f32 error.
struct Bounded {
  double v, e;
};

constexpr double kStep = 8 * kU;  // per rounding step or library function

Bounded sigmoid_b(double gx, double gh) {
  const double v = 1.0 / (1.0 + std::exp(-(gx + gh)));
  return {v, kStep * (std::fabs(gx) + std::fabs(gh)) * v * (1 - v) + kStep * v};
}

Bounded tanh_of(double arg, double arg_error) {
  const double v = std::tanh(arg);
  return {v, (1 - v * v) * arg_error + kStep * std::fabs(v) + kU};
}

struct CellCase {
  size_t batch, hidden;
  float gate_range, state_range;
  size_t gx_pad, h_pad;  // floats of stride padding on gates_x rows and h rows
  bool in_place;
};

std::string describe(const CellCase& c) {
  return "b" + std::to_string(c.batch) + " H" + std::to_string(c.hidden) + " gates" +
         std::to_string(c.gate_range) + " state" + std::to_string(c.state_range) + " pads" +
         std::to_string(c.gx_pad) + "/" + std::to_string(c.h_pad) + (c.in_place ? " in place" : "");
}

void check_lstm(const CellCase& c, const std::vector<PointwiseKernels>& sets, uint32_t seed,
                CaseReport& report) {
  CAPTURE(describe(c));
  const size_t H = c.hidden, gxs = 4 * H + c.gx_pad, hs = H + c.h_pad;
  const std::vector<float> gx = uniform(c.batch * gxs, seed, -c.gate_range, c.gate_range);
  const std::vector<float> gh = uniform(c.batch * 4 * H, seed + 1, -c.gate_range, c.gate_range);
  const std::vector<float> c0 = uniform(c.batch * H, seed + 2, -c.state_range, c.state_range);
  std::vector<double> want_c(c.batch * H), tol_c(c.batch * H), want_h(c.batch * H),
      tol_h(c.batch * H);
  for (size_t b = 0; b < c.batch; ++b) {
    for (size_t j = 0; j < H; ++j) {
      const float* x = gx.data() + b * gxs;
      const float* h = gh.data() + b * 4 * H;
      const Bounded i = sigmoid_b(x[j], h[j]), f = sigmoid_b(x[H + j], h[H + j]);
      const Bounded g = tanh_of(double(x[2 * H + j]) + h[2 * H + j],
                                kStep * (std::fabs(x[2 * H + j]) + std::fabs(h[2 * H + j])));
      const Bounded o = sigmoid_b(x[3 * H + j], h[3 * H + j]);
      const double cp = c0[b * H + j];
      const double cv = f.v * cp + i.v * g.v;
      const double ce = f.e * std::fabs(cp) + i.e * std::fabs(g.v) + g.e * i.v +
                        kStep * (std::fabs(f.v * cp) + std::fabs(i.v * g.v));
      const Bounded t = tanh_of(cv, ce);
      want_c[b * H + j] = cv;
      tol_c[b * H + j] = ce + 1e-30;
      want_h[b * H + j] = o.v * t.v;
      tol_h[b * H + j] = o.e * std::fabs(t.v) + o.v * t.e + kStep * std::fabs(o.v * t.v) + 1e-30;
    }
  }
  std::vector<const PointwiseKernels*> runs = {nullptr};
  for (const auto& k : sets) runs.push_back(&k);
  for (const PointwiseKernels* k : runs) {
    CAPTURE(std::string(k != nullptr ? k->isa : "reference"));
    Floats x(gx, seed % 2), hg(gh, (seed + 1) % 2), c_prev(c0, 0), c_out(c.batch * H, 1),
        h_out(c.batch * hs, 1);
    LstmCellParams p;
    p.batch = c.batch;
    p.hidden = H;
    p.gates_x = x.data();
    p.gates_h = hg.data();
    p.c_prev = c_prev.data();
    p.c = c.in_place ? c_prev.data() : c_out.data();
    p.h = h_out.data();
    p.gates_x_stride = gxs;
    p.h_stride = hs;
    if (k == nullptr) {
      lstm_cell_reference(p);
    } else {
      lstm_cell(p, *k);
    }
    const Floats& cv = c.in_place ? c_prev : c_out;
    Worst wc, wh;
    bool gaps_intact = true;
    for (size_t b = 0; b < c.batch; ++b) {
      for (size_t j = 0; j < H; ++j) {
        wc.add(b * H + j, cv[b * H + j], want_c[b * H + j], tol_c[b * H + j]);
        wh.add(b * H + j, h_out[b * hs + j], want_h[b * H + j], tol_h[b * H + j]);
      }
      for (size_t j = H; j < hs; ++j)
        gaps_intact = gaps_intact && same_bits(h_out[b * hs + j], kSentinel);
    }
    CHECK_MESSAGE(wc.ratio <= 1.0, "c " << wc.str());
    CHECK_MESSAGE(wh.ratio <= 1.0, "h " << wh.str());
    CHECK(gaps_intact);
    CHECK(cv.guards_intact());
    CHECK(h_out.guards_intact());
    report.take(wc);
    report.take(wh);
  }
}

void check_gru(const CellCase& c, const std::vector<PointwiseKernels>& sets, uint32_t seed,
               CaseReport& report) {
  CAPTURE(describe(c));
  const size_t H = c.hidden, gxs = 3 * H + c.gx_pad, hs = H + c.h_pad;
  const std::vector<float> gx = uniform(c.batch * gxs, seed, -c.gate_range, c.gate_range);
  const std::vector<float> gh = uniform(c.batch * 3 * H, seed + 1, -c.gate_range, c.gate_range);
  std::vector<float> h0 = uniform(c.batch * hs, seed + 2, -c.state_range, c.state_range);
  for (size_t b = 0; b < c.batch; ++b) {
    for (size_t j = H; j < hs; ++j) h0[b * hs + j] = kSentinel;
  }
  std::vector<double> want(c.batch * H), tol(c.batch * H);
  for (size_t b = 0; b < c.batch; ++b) {
    for (size_t j = 0; j < H; ++j) {
      const float* x = gx.data() + b * gxs;
      const float* h = gh.data() + b * 3 * H;
      const Bounded r = sigmoid_b(x[j], h[j]), z = sigmoid_b(x[H + j], h[H + j]);
      const double arg = double(x[2 * H + j]) + r.v * h[2 * H + j];
      const double arg_e = kStep * (std::fabs(x[2 * H + j]) + std::fabs(r.v * h[2 * H + j])) +
                           r.e * std::fabs(h[2 * H + j]);
      const Bounded n = tanh_of(arg, arg_e);
      const double hp = h0[b * hs + j];
      want[b * H + j] = n.v + z.v * (hp - n.v);
      tol[b * H + j] = n.e * (1 - z.v) + z.e * std::fabs(hp - n.v) +
                       kStep * (std::fabs(n.v) + std::fabs(z.v * (hp - n.v))) + 1e-30;
    }
  }
  std::vector<const PointwiseKernels*> runs = {nullptr};
  for (const auto& k : sets) runs.push_back(&k);
  for (const PointwiseKernels* k : runs) {
    CAPTURE(std::string(k != nullptr ? k->isa : "reference"));
    Floats x(gx, seed % 2), hg(gh, (seed + 1) % 2), h_prev(h0, 1), h_out(c.batch * hs, 0);
    for (size_t i = 0; i < h_out.size(); ++i) h_out[i] = kSentinel;
    GruCellParams p;
    p.batch = c.batch;
    p.hidden = H;
    p.gates_x = x.data();
    p.gates_h = hg.data();
    p.h_prev = h_prev.data();
    p.h = c.in_place ? h_prev.data() : h_out.data();
    p.gates_x_stride = gxs;
    p.h_stride = hs;
    if (k == nullptr) {
      gru_cell_reference(p);
    } else {
      gru_cell(p, *k);
    }
    const Floats& hv = c.in_place ? h_prev : h_out;
    Worst w;
    bool gaps_intact = true;
    for (size_t b = 0; b < c.batch; ++b) {
      for (size_t j = 0; j < H; ++j)
        w.add(b * H + j, hv[b * hs + j], want[b * H + j], tol[b * H + j]);
      for (size_t j = H; j < hs; ++j)
        gaps_intact = gaps_intact && same_bits(hv[b * hs + j], kSentinel);
    }
    CHECK_MESSAGE(w.ratio <= 1.0, w.str());
    CHECK(gaps_intact);
    CHECK(hv.guards_intact());
    report.take(w);
  }
}

TEST_CASE("pointwise: LSTM cell step (i, f, g, o) on every ISA") {
  CaseReport report("lstm_cell");
  const auto sets = kernel_sets();
  uint32_t seed = 900;
  for (size_t H : kWidths) {
    check_lstm({2, H, 4.0f, 2.0f, 0, 0, false}, sets, seed += 3, report);
    check_lstm({1, H, 88.0f, 1e4f, 3, 2, true}, sets, seed += 3, report);
    check_lstm({3, H, 1e4f, 1.0f, 1, 0, false}, sets, seed += 3, report);
  }
}

TEST_CASE("pointwise: GRU cell step (r, z, n) on every ISA") {
  CaseReport report("gru_cell");
  const auto sets = kernel_sets();
  uint32_t seed = 1000;
  for (size_t H : kWidths) {
    check_gru({2, H, 4.0f, 1.0f, 0, 0, false}, sets, seed += 3, report);
    check_gru({1, H, 88.0f, 1e4f, 3, 2, true}, sets, seed += 3, report);
    check_gru({3, H, 1e4f, 1.0f, 1, 0, false}, sets, seed += 3, report);
  }
}

TEST_CASE("pointwise: LSTM and GRU cells match PyTorch's LSTMCell and GRUCell") {
  // torch.manual_seed(0); lstm = nn.LSTMCell(3, 5); gru = nn.GRUCell(3, 5);
  // x = randn(2, 3); h0 = randn(2, 5); c0 = randn(2, 5)
  // gates_x = x @ weight_ih.T + bias_ih, gates_h = h0 @ weight_hh.T + bias_hh (each cell's own)
  // h1, c1 = lstm(x, (h0, c0)); h1 = gru(x, h0)   (PyTorch 1.13, f32)
  const float lstm_gx[] = {
      -0.0666358396f, 0.168659478f,  -0.547201395f,  -0.370500386f,  0.416415572f,   -0.182164744f,
      0.0316871703f,  -0.152299538f, -0.519226968f,  0.416158259f,   0.430152446f,   0.247300491f,
      0.327032059f,   0.0879221186f, -0.144980997f,  0.211693987f,   -0.0131720528f, -0.598486722f,
      0.252652884f,   0.0944871008f, -0.322351247f,  0.425773621f,   -0.34036687f,   -0.651475668f,
      0.307430804f,   0.238233119f,  0.303450525f,   -0.0989748091f, 0.0330879688f,  0.390457124f,
      0.490202099f,   -0.303863406f, 1.01327014f,    -0.317272007f,  -0.862577975f,  0.877134919f,
      0.449286252f,   -0.727484941f, -0.0511648357f, -0.136224255f};
  const float lstm_gh[] = {
      -0.532569528f, -0.835411668f, -0.1807926f,  0.697276235f,  -0.52549541f,  0.866492927f,
      0.970834136f,  0.065138258f,  0.336731136f, 0.191325977f,  -0.261077106f, 0.13515833f,
      0.763418317f,  0.697933197f,  -1.18152249f, -0.834249198f, 0.600840449f,  0.540678322f,
      -0.478897035f, 0.0214853808f, 0.174912363f, -0.291934729f, -0.269553095f, 0.856388271f,
      -0.465325654f, 0.270926237f,  1.03979123f,  -0.412737131f, 0.653612018f,  -0.254030734f,
      0.0843162239f, -0.383457631f, 0.429969221f, -0.370285779f, -0.922571659f, -0.534889281f,
      1.18604779f,   0.128921807f,  -1.21612358f, -0.658114135f};
  const float h0[] = {0.140806794f, -0.582038462f, 0.223937035f, 0.761596501f, -2.231879f,
                      1.57339072f,  0.544744253f,  0.622881711f, 0.833629191f, -0.965550363f};
  const float c0[] = {0.0555367321f, -0.881984591f, 1.20757413f,  0.611967444f,  -1.60063696f,
                      0.414978385f,  1.70037055f,   -0.90609771f, -0.505574405f, -1.1734935f};
  const float lstm_h1[] = {0.0335217789f, -0.307801962f, 0.332231879f, 0.256398469f,
                           -0.473444074f, 0.26996392f,   0.647811353f, -0.00876524765f,
                           -0.127804607f, -0.244777709f};
  const float lstm_c1[] = {0.0962922946f, -0.521456361f, 0.837035298f, 0.659291744f,
                           -1.44673777f,  0.499450862f,  1.03038216f,  -0.024718672f,
                           -0.664976478f, -1.06209683f};
  const float gru_gx[] = {
      0.00900863484f, 0.27063331f,    -0.478182971f, 0.0302514751f,  0.321324915f,  0.611067593f,
      0.20442313f,    -0.313229948f,  0.474166602f,  -0.040015474f,  -0.565862f,    -0.678497493f,
      0.527594447f,   0.00974023342f, -0.294994473f, -0.194523871f,  0.673841715f,  0.0867583156f,
      -0.115078866f,  0.206159323f,   0.0563809574f, -0.346146971f,  -0.506813943f, 0.54108727f,
      -0.128689975f,  -0.248858839f,  -1.10486197f,  -0.0558732748f, 0.404164702f,  0.0754229426f};
  const float gru_gh[] = {
      0.0174600929f, 0.845985651f,  1.22946382f,   0.157512352f,  0.436375618f, 0.529066682f,
      -0.831076682f, 0.572336555f,  0.386113673f,  -0.146389768f, 0.583831489f, -0.0306273997f,
      0.456815362f,  -0.760163605f, 0.369748205f,  -0.481182694f, 0.377060384f, 0.180202633f,
      0.402773559f,  0.31476742f,   -0.49047485f,  -0.91769588f,  0.227354154f, 0.768699288f,
      -0.437785745f, 0.227335662f,  -0.223246872f, 0.0824798942f, -1.09788358f, 0.592759252f};
  const float gru_h1[] = {0.0427959859f, -0.597240448f, 0.424654365f, 0.420734525f, -1.03585112f,
                          0.5151003f,    -0.545738935f, 0.262987971f, 0.609801292f, -0.0818456113f};
  for (const auto& k : kernel_sets()) {
    CAPTURE(std::string(k.isa));
    float c1[10], h1[10];
    LstmCellParams lp;
    lp.batch = 2;
    lp.hidden = 5;
    lp.gates_x = lstm_gx;
    lp.gates_h = lstm_gh;
    lp.c_prev = c0;
    lp.c = c1;
    lp.h = h1;
    lstm_cell(lp, k);
    for (size_t i = 0; i < 10; ++i) {
      CHECK(std::fabs(c1[i] - lstm_c1[i]) <= 1e-6f);
      CHECK(std::fabs(h1[i] - lstm_h1[i]) <= 1e-6f);
    }
    GruCellParams gp;
    gp.batch = 2;
    gp.hidden = 5;
    gp.gates_x = gru_gx;
    gp.gates_h = gru_gh;
    gp.h_prev = h0;
    gp.h = h1;
    gru_cell(gp, k);
    for (size_t i = 0; i < 10; ++i) CHECK(std::fabs(h1[i] - gru_h1[i]) <= 1e-6f);
  }
}

TEST_CASE("pointwise: every usable ISA is listed, the best one first in preference") {
  const auto sets = kernel_sets();
  REQUIRE(!sets.empty());
  CHECK(std::string(sets[0].isa) == "scalar");
  bool found = false;
  for (const auto& k : sets) {
    found = found || std::string(k.isa) == pointwise_kernels().isa;
    CHECK(k.normalization != nullptr);
    CHECK(k.softmax != nullptr);
    CHECK(k.elementwise != nullptr);
    CHECK(k.embedding != nullptr);
    CHECK(k.position != nullptr);
    CHECK(k.pooling != nullptr);
    CHECK(k.recurrent != nullptr);
    CHECK(std::string(k.normalization->isa) == k.isa);
    CHECK(std::string(k.recurrent->isa) == k.isa);
  }
  CHECK(found);
  MESSAGE("pointwise kernels: " << std::string(pointwise_kernels().isa) << " of " << sets.size()
                                << " usable sets");
}

}  // namespace
