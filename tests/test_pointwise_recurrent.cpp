// Pointwise kernels: LSTM and GRU cell updates, and the kernel-set listing, on every instruction set this CPU has, against
// their reference twins and double-precision computations (tolerances: see
// support/pointwise_testing.h).
#include "support/pointwise_testing.h"

using namespace focal;
using namespace focal::kernels;
using namespace focal::pointwise_testing;

namespace {

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

void check_lstm(const CellCase& c, const std::vector<KernelSet>& sets, uint32_t seed,
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
  std::vector<const KernelSet*> runs = {nullptr};
  for (const auto& k : sets) runs.push_back(&k);
  for (const KernelSet* k : runs) {
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

void check_gru(const CellCase& c, const std::vector<KernelSet>& sets, uint32_t seed,
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
  std::vector<const KernelSet*> runs = {nullptr};
  for (const auto& k : sets) runs.push_back(&k);
  for (const KernelSet* k : runs) {
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
    found = found || std::string(k.isa) == best_kernel_set().isa;
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
  MESSAGE("pointwise kernels: " << std::string(best_kernel_set().isa) << " of " << sets.size()
                                << " usable sets");
}

}  // namespace
