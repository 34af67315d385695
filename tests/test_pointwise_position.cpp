// Pointwise kernels: RoPE and sinusoidal position encodings, on every instruction set this CPU has, against
// their reference twins and double-precision computations (tolerances: see
// support/pointwise_testing.h).
#include "support/pointwise_testing.h"

using namespace focal;
using namespace focal::kernels;
using namespace focal::pointwise_testing;

namespace {

// ---------------------------------------------------------------------------------
// Rotary position embedding

struct RopeCase {
  size_t batch, seq, heads, head_dim, rotary_dim;
  RopeLayout layout;
  int64_t offset;
  bool positions;   // explicit positions instead of the offset
  size_t head_pad;  // floats between heads (a stride)
  float range;
  bool table = false;  // a stored frequency table (Llama 3's rope_scaling) instead of theta's
};

std::string describe(const RopeCase& c) {
  return "b" + std::to_string(c.batch) + " s" + std::to_string(c.seq) + " h" +
         std::to_string(c.heads) + " d" + std::to_string(c.head_dim) + " r" +
         std::to_string(c.rotary_dim) +
         (c.layout == RopeLayout::kHalfSplit ? " half-split" : " interleaved") + " offset" +
         std::to_string(c.offset) + (c.positions ? " positions" : "") + " pad" +
         std::to_string(c.head_pad) + " range" + std::to_string(c.range) + (c.table ? " table" : "");
}

void check_rope_case(const RopeCase& c, const std::vector<KernelSet>& sets, uint32_t seed,
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
  // A table no theta gives: every third frequency slowed 8x, others 1.5x (as llama3's bands).
  std::vector<float> table(half);
  for (size_t k = 0; k < half; ++k) table[k] = rope_inv_frequency(p.theta, k, rotary) / (k % 3 == 0 ? 8.0f : 1.5f);
  if (c.table) p.inv_frequency = table.data();
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
          const float angle = position * (c.table ? table[k] : rope_inv_frequency(p.theta, k, rotary));
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
  std::vector<const KernelSet*> runs = {nullptr};
  for (const auto& k : sets) runs.push_back(&k);
  for (const KernelSet* k : runs) {
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
    // A stored frequency table, full and partial rotary, across the vector widths.
    for (size_t r : {size_t{6}, size_t{34}, size_t{128}}) {
      check_rope_case({2, 3, 2, r, 0, layout, 5, false, 0, 1.0f, true}, sets, ++seed, report);
    }
    check_rope_case({1, 2, 2, 128, 32, layout, 3000, false, 1, 1.0f, true}, sets, ++seed, report);
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
            std::vector<const KernelSet*> runs = {nullptr};
            for (const auto& k : sets) runs.push_back(&k);
            for (const KernelSet* k : runs) {
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

}  // namespace
