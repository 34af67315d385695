// Pointwise kernels: layernorm, rmsnorm, l2-normalize and softmax, on every instruction set this CPU has, against
// their reference twins and double-precision computations (tolerances: see
// support/pointwise_testing.h).
#include "support/pointwise_testing.h"

using namespace focal;
using namespace focal::kernels;
using namespace focal::pointwise_testing;

namespace {

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
              const Floats& beta, Floats& y, const KernelSet* k) {
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
          std::vector<const KernelSet*> runs = {nullptr};
          for (const auto& k : sets) runs.push_back(&k);
          for (const KernelSet* k : runs) {
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

// Rows of every width a sentence encoder could feed the L2 normalization, with the
// values that break a naive kernel: zeros (0 / max(0, eps) = 0, not NaN), one NaN (the
// whole row is NaN, as PyTorch's clamp_min keeps a NaN norm; std::fmax would give
// finite values), huge values whose squares are near the f32 limit, values so small the
// norm is below epsilon (y = x / epsilon), and one +inf (x / inf: zeros, NaN for inf).
enum class L2Row { kZero, kNan, kHuge, kBelowEpsilon, kInf };

std::vector<float> l2_row(L2Row kind, size_t width, uint32_t seed) {
  std::vector<float> x = uniform(width, seed, -1.0f, 1.0f);
  const float huge = 5e17f;  // 768 squares of up to 2.5e35 stay below FLT_MAX (3.4e38)
  for (float& v : x) {
    if (kind == L2Row::kZero) v = 0.0f;
    if (kind == L2Row::kHuge) v *= huge;
    if (kind == L2Row::kBelowEpsilon) v *= 1e-16f;  // norm <= 768 * 1e-16 < 1e-12
  }
  if (kind == L2Row::kNan) x[width / 2] = NAN;
  if (kind == L2Row::kInf) x[width / 2] = kInf;
  return x;
}

TEST_CASE("pointwise: l2-normalize of zero, NaN, huge, below-epsilon and inf rows on every ISA") {
  CaseReport report("l2_normalize extremes");
  const L2Row kinds[] = {L2Row::kZero, L2Row::kNan, L2Row::kHuge, L2Row::kBelowEpsilon, L2Row::kInf};
  std::vector<const KernelSet*> runs = {nullptr};
  const auto sets = kernel_sets();
  for (const auto& k : sets) runs.push_back(&k);
  uint32_t seed = 300;
  for (size_t width : kWidths) {
    for (L2Row kind : kinds) {
      CAPTURE(width);
      CAPTURE(static_cast<int>(kind));
      const std::vector<float> xv = l2_row(kind, width, ++seed);
      const LayerNormParams p{1, width, 1e-12f};
      double squares = 0.0;
      for (float v : xv) squares += double(v) * v;
      const double norm = std::sqrt(squares);
      const double epsilon = double(p.epsilon), divisor = norm < epsilon ? epsilon : norm;  // NaN stays NaN
      for (const KernelSet* k : runs) {
        CAPTURE(std::string(k != nullptr ? k->isa : "reference"));
        Floats x(xv, 1), y(width, 0);
        if (k == nullptr) {
          l2_normalize_f32_reference(p, x.data(), y.data());
        } else {
          l2_normalize(p, x.data(), y.data(), *k);
        }
        Worst w;
        bool all_nan = true, all_zero = true;
        for (size_t i = 0; i < width; ++i) {
          const double want = double(xv[i]) / divisor;
          w.add(i, y[i], want, 8 * kU * (std::sqrt(double(width)) + 2) * std::fabs(want) + 1e-30);
          all_nan = all_nan && std::isnan(y[i]);
          all_zero = all_zero && y[i] == 0.0f;
        }
        CHECK_MESSAGE(w.ratio <= 1.0, w.str());
        if (kind == L2Row::kNan) CHECK(all_nan);
        if (kind == L2Row::kZero) CHECK(all_zero);
        CHECK(y.guards_intact());
        report.take(w);
      }
    }
  }
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
        std::vector<const KernelSet*> runs = {nullptr};
        for (const auto& k : sets) runs.push_back(&k);
        for (const KernelSet* k : runs) {
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

}  // namespace
