// Pointwise kernels: residual add, swiglu and geglu, on every instruction set this CPU has, against
// their reference twins and double-precision computations (tolerances: see
// support/pointwise_testing.h).
#include "support/pointwise_testing.h"

using namespace focal;
using namespace focal::kernels;
using namespace focal::pointwise_testing;

namespace {

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
              const KernelSet* k) {
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
        std::vector<const KernelSet*> runs = {nullptr};
        for (const auto& k : sets) runs.push_back(&k);
        for (const KernelSet* k : runs) {
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

}  // namespace
