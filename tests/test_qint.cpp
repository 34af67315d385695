// The static-int8 kernels (engine/src/kernels/qint/): the fixed-point requantization
// against exact rational arithmetic, the multiplier's encoding, the int16 tanh and
// sigmoid against double over every input, this build's dot products against the
// plain-C twin bit for bit (ragged K around the 4- and 16-wide steps, all -128, all 127,
// unaligned rows, strides past K), the GEMV and the LSTM cell against double
// references, and a fingerprint of a fixed integer pipeline whose value is written here:
// every core that passes it (host, aarch64, armv7 and the Cortex-M images) computes the
// same bits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "qint/activation_s16.h"
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

using namespace focal::kernels;

namespace {

struct Lcg {
  uint32_t state;
  uint32_t next() { return state = state * 1664525u + 1013904223u; }
  int8_t s8() { return int8_t(next() >> 24); }
  int32_t in_range(int32_t lo, int32_t hi) { return lo + int32_t((next() >> 8) % uint32_t(hi - lo + 1)); }
};

// round(acc * multiplier * 2^(shift - 31)) in exact double (|acc| < 2^24 keeps it exact),
// ties away from zero.
double exact_requantized(int32_t acc, const qint::FixedMultiplier& m) {
  const double v = double(acc) * double(m.multiplier) * std::ldexp(1.0, m.shift - 31);
  return v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5);
}

}  // namespace

TEST_CASE("qint: requantize is within one step of the exact product, and exact for M = 1") {
  Lcg rng{7};
  for (int trial = 0; trial < 4000; ++trial) {
    const double real = std::ldexp(0.5 + 0.5 * double(rng.next() >> 8) / double(1 << 24),
                                   rng.in_range(-20, 3));
    qint::FixedMultiplier m{};
    REQUIRE(qint::quantize_multiplier(real, &m));
    REQUIRE(m.multiplier >= (int32_t(1) << 30));
    const int32_t acc = rng.in_range(-(1 << 20), 1 << 20);
    const double exact = exact_requantized(acc, m);
    CHECK(std::fabs(double(qint::requantize(acc, m.multiplier, m.shift)) - exact) <= 1.0);
  }
  qint::FixedMultiplier one{};
  REQUIRE(qint::quantize_multiplier(1.0, &one));
  for (int32_t acc : std::initializer_list<int32_t>{0, 1, -1, 12345, -12345, INT32_MAX / 2, INT32_MIN / 2}) {
    CHECK(qint::requantize(acc, one.multiplier, one.shift) == acc);
  }
  // Ties: the high multiply rounds them up (CMSIS-NN adds 2^30 before the shift by 31):
  // 1.5 -> 2, -1.5 -> -1, -0.5 -> 0; the right shift rounds them away from zero: with
  // M = 1/4 (Q31 1/2, shift -1), -2 -> -1 (the high multiply gives -1, -1/2 -> -1).
  qint::FixedMultiplier half{}, quarter{};
  REQUIRE(qint::quantize_multiplier(0.5, &half));
  REQUIRE(qint::quantize_multiplier(0.25, &quarter));
  CHECK(qint::requantize(3, half.multiplier, half.shift) == 2);
  CHECK(qint::requantize(-3, half.multiplier, half.shift) == -1);
  CHECK(qint::requantize(-1, half.multiplier, half.shift) == 0);
  CHECK(qint::requantize(2, quarter.multiplier, quarter.shift) == 1);
  CHECK(qint::requantize(-2, quarter.multiplier, quarter.shift) == -1);
  CHECK(qint::requantize(-6, quarter.multiplier, quarter.shift) == -2);
}

TEST_CASE("qint: quantize_multiplier encodes within 2^-31 and refuses what it cannot hold") {
  for (double real : {1e-9, 0.000123, 0.25, 0.999999999, 1.0, 3.5, 1000.0}) {
    qint::FixedMultiplier m{};
    REQUIRE(qint::quantize_multiplier(real, &m));
    const double decoded = double(m.multiplier) * std::ldexp(1.0, m.shift - 31);
    CHECK(std::fabs(decoded - real) <= real * std::ldexp(1.0, -31));
  }
  qint::FixedMultiplier m{1, 1};
  CHECK(qint::quantize_multiplier(0.0, &m));
  CHECK(m.multiplier == 0);
  CHECK(qint::quantize_multiplier(1e-12, &m));  // below 2^-31: rounds to zero
  CHECK(m.multiplier == 0);
  CHECK_FALSE(qint::quantize_multiplier(-0.5, &m));
  CHECK_FALSE(qint::quantize_multiplier(std::nan(""), &m));
  CHECK_FALSE(qint::quantize_multiplier(std::ldexp(1.0, 40), &m));
}

TEST_CASE("qint: int16 tanh and sigmoid within 4 Q15 steps of double, monotone, over every input") {
  int worst_tanh = 0, worst_sigmoid = 0;
  int previous_tanh = INT32_MIN, previous_sigmoid = INT32_MIN;
  for (int32_t q = INT16_MIN; q <= INT16_MAX; ++q) {
    const double x = double(q) / 4096.0;
    const int t = qint::tanh_s16(int16_t(q));
    const int s = qint::sigmoid_s16(int16_t(q));
    const double want_t = std::fmin(32767.0, 32768.0 * std::tanh(x));
    const double want_s = std::fmin(32767.0, 32768.0 / (1.0 + std::exp(-x)));
    worst_tanh = std::max(worst_tanh, int(std::ceil(std::fabs(t - want_t))));
    worst_sigmoid = std::max(worst_sigmoid, int(std::ceil(std::fabs(s - want_s))));
    CHECK(t >= previous_tanh);
    CHECK(s >= previous_sigmoid);
    previous_tanh = t;
    previous_sigmoid = s;
  }
  CHECK(worst_tanh <= 4);
  CHECK(worst_sigmoid <= 4);
  CHECK(qint::tanh_s16(0) == 0);
  CHECK(qint::sigmoid_s16(0) == 16384);
  CHECK(qint::sigmoid_s16(INT16_MIN) >= 0);
}

TEST_CASE("qint: this build's dot products equal the plain-C twin bit for bit") {
  const QIntKernelTable& native = qint_kernels();
  const QIntKernelTable& twin = qint_reference_kernels();
  MESSAGE("qint dot_rows: " << std::string(native.isa));
  Lcg rng{11};
  enum Fill { kRandom, kAllMin, kAllMax, kMinTimesMax };
  for (Fill fill : {kRandom, kAllMin, kAllMax, kMinTimesMax}) {
    for (size_t k : {size_t(0), size_t(1), size_t(3), size_t(4), size_t(5), size_t(15),
                     size_t(16), size_t(17), size_t(31), size_t(33), size_t(64), size_t(67),
                     size_t(130), size_t(1000)}) {
      for (size_t rows = 1; rows <= kQIntRows; ++rows) {
        const size_t stride = k + (rng.next() >> 30);  // 0..3 bytes past K
        // One byte of offset makes every row and x start unaligned.
        std::vector<int8_t> x(k + 1), w(rows * stride + 1);
        std::vector<int32_t> bias(rows);
        for (auto& v : x) v = fill == kRandom ? rng.s8() : (fill == kAllMax ? 127 : -128);
        for (auto& v : w) v = fill == kRandom ? rng.s8() : (fill == kAllMin ? -128 : 127);
        for (auto& b : bias) b = rng.in_range(-100000, 100000);
        for (const int32_t* b : {static_cast<const int32_t*>(nullptr), static_cast<const int32_t*>(bias.data())}) {
          int32_t got[kQIntRows] = {}, want[kQIntRows] = {};
          native.dot_rows(x.data() + 1, w.data() + 1, stride, k, rows, b, got);
          twin.dot_rows(x.data() + 1, w.data() + 1, stride, k, rows, b, want);
          for (size_t r = 0; r < rows; ++r) CHECK(got[r] == want[r]);
        }
      }
    }
  }
}

namespace {

// A GEMV problem with per-channel multipliers near those of a real layer.
struct Gemv {
  size_t n, k;
  std::vector<int8_t> w, x;
  std::vector<int32_t> bias, multiplier, shift;
  std::vector<double> real_multiplier;
  QGemvParams params() const {
    QGemvParams p;
    p.n = n;
    p.k = k;
    p.w = w.data();
    p.w_stride = k;
    p.bias = bias.data();
    p.multiplier = multiplier.data();
    p.shift = shift.data();
    return p;
  }
};

Gemv make_gemv(size_t n, size_t k, uint32_t seed) {
  Lcg rng{seed};
  Gemv g{n, k, std::vector<int8_t>(n * k), std::vector<int8_t>(k), std::vector<int32_t>(n),
         std::vector<int32_t>(n), std::vector<int32_t>(n), std::vector<double>(n)};
  for (auto& v : g.w) v = int8_t(rng.in_range(-127, 127));
  for (auto& v : g.x) v = rng.s8();
  for (size_t j = 0; j < n; ++j) {
    g.bias[j] = rng.in_range(-20000, 20000);
    // Sums of K products of about 64 x 64 spread to about 64 sqrt(K) * 64: a multiplier
    // near 1 / (64 sqrt K) keeps the outputs inside int8 mostly, clamped sometimes.
    g.real_multiplier[j] = (0.5 + double(rng.next() >> 8) / double(1 << 24)) / (64.0 * std::sqrt(double(k)));
    qint::FixedMultiplier m{};
    REQUIRE(qint::quantize_multiplier(g.real_multiplier[j], &m));
    g.multiplier[j] = m.multiplier;
    g.shift[j] = m.shift;
  }
  return g;
}

int32_t exact_sum(const Gemv& g, size_t j) {
  int64_t sum = g.bias[j];
  for (size_t i = 0; i < g.k; ++i) sum += int64_t(g.x[i]) * g.w[j * g.k + i];
  return int32_t(sum);
}

}  // namespace

TEST_CASE("qint: qgemv_s8 and qgemv_s16_accumulate against double, ragged sizes") {
  for (size_t n : {size_t(1), size_t(3), size_t(4), size_t(9), size_t(64)}) {
    for (size_t k : {size_t(7), size_t(64), size_t(129)}) {
      const Gemv g = make_gemv(n, k, uint32_t(n * 131 + k));
      QGemvParams p = g.params();
      p.output_zero_point = -5;
      std::vector<int8_t> y8(n);
      qgemv_s8(qint_kernels(), p, g.x.data(), y8.data());
      std::vector<int16_t> y16(n, int16_t(30000));
      qgemv_s16_accumulate(qint_kernels(), p, g.x.data(), y16.data());
      for (size_t j = 0; j < n; ++j) {
        const double real = double(exact_sum(g, j)) * g.real_multiplier[j];
        const double want8 = std::fmax(-128.0, std::fmin(127.0, std::nearbyint(real) - 5.0));
        CHECK(std::fabs(double(y8[j]) - want8) <= 1.0);
        const double want16 = std::fmax(-32768.0, std::fmin(32767.0, 30000.0 + std::nearbyint(real)));
        CHECK(std::fabs(double(y16[j]) - want16) <= 1.0);
      }
    }
  }
}

TEST_CASE("qint: the LSTM cell against a double LSTM cell, over the gates' whole range") {
  constexpr size_t kHidden = 37;
  const double hidden_scale = 1.0 / 128.0;
  for (int32_t frac_bits : {9, 11, 13}) {
    Lcg rng{uint32_t(frac_bits)};
    std::vector<int16_t> gates(4 * kHidden), cell(kHidden);
    for (auto& v : gates) v = int16_t(rng.in_range(INT16_MIN, INT16_MAX));
    const int32_t cell_limit = std::min<int32_t>(INT16_MAX, 3 << frac_bits);  // |c| < 3
    for (auto& v : cell) v = int16_t(rng.in_range(-cell_limit, cell_limit));
    const std::vector<int16_t> cell_before = cell;
    QLstmCellParams p;
    p.hidden = kHidden;
    p.cell_frac_bits = frac_bits;
    qint::FixedMultiplier m{};
    REQUIRE(qint::quantize_multiplier(std::ldexp(1.0, -30) / hidden_scale, &m));
    p.hidden_multiplier = m.multiplier;
    p.hidden_shift = m.shift;
    p.hidden_zero_point = 3;
    std::vector<int8_t> hidden(kHidden);
    qlstm_cell(p, gates.data(), cell.data(), hidden.data());
    const double cell_step = std::ldexp(1.0, -frac_bits);
    auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    for (size_t j = 0; j < kHidden; ++j) {
      auto gate = [&](size_t which) { return double(gates[which * kHidden + j]) / 4096.0; };
      const double c = sigmoid(gate(1)) * double(cell_before[j]) * cell_step +
                       sigmoid(gate(0)) * std::tanh(gate(2));
      const double h = sigmoid(gate(3)) * std::tanh(c);
      // The table's 4 steps of 2^-15 on each factor, the products' roundings: a few 1e-4.
      CHECK(std::fabs(double(cell[j]) * cell_step - c) <= 4e-4 + cell_step);
      // int8 holds [-131, 124] / 128 with the zero point 3: the reference clamps too.
      const double want = std::fmax(-128.0, std::fmin(127.0, h / hidden_scale + 3.0));
      CHECK(std::fabs(double(hidden[j]) - want) <= 0.5 + 5e-4 / hidden_scale);
    }
  }
}

namespace {

// FNV-1a over bytes.
uint32_t fingerprint(uint32_t hash, const void* data, size_t bytes) {
  const uint8_t* b = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < bytes; ++i) hash = (hash ^ b[i]) * 16777619u;
  return hash;
}

}  // namespace

TEST_CASE("qint: a fixed integer LSTM step gives the same bits on every core") {
  // Gates from an input and a recurrent product (int16, saturating), 8 steps of the cell,
  // then an int8 dense head: the fingerprint of every state and output.
  constexpr size_t kHidden = 24, kInput = 19;
  const Gemv input = make_gemv(4 * kHidden, kInput, 101);
  Gemv recurrent = make_gemv(4 * kHidden, kHidden, 202);
  const Gemv head = make_gemv(5, kHidden, 303);
  QLstmCellParams cell_params;
  cell_params.hidden = kHidden;
  qint::FixedMultiplier m{};
  REQUIRE(qint::quantize_multiplier(std::ldexp(1.0, -30) * 128.0, &m));
  cell_params.hidden_multiplier = m.multiplier;
  cell_params.hidden_shift = m.shift;
  std::vector<int16_t> cell(kHidden, 0), gates(4 * kHidden);
  std::vector<int8_t> h(kHidden, 0), logits(5);
  // Gate multipliers scaled up so pre-activations span the Q3.12 range.
  QGemvParams pi = input.params(), pr = recurrent.params();
  std::vector<int32_t> big_shift_i(input.shift), big_shift_r(recurrent.shift);
  for (auto& s : big_shift_i) s += 7;
  for (auto& s : big_shift_r) s += 7;
  pi.shift = big_shift_i.data();
  pr.shift = big_shift_r.data();
  uint32_t hash = 2166136261u;
  size_t saturated_gates = 0;
  Lcg rng{55};
  std::vector<int8_t> x(kInput);
  for (int step = 0; step < 8; ++step) {
    for (auto& v : x) v = rng.s8();
    for (auto& g : gates) g = 0;
    qgemv_s16_accumulate(qint_kernels(), pi, x.data(), gates.data());
    qgemv_s16_accumulate(qint_kernels(), pr, h.data(), gates.data());
    for (int16_t g : gates) saturated_gates += (g == INT16_MAX || g == INT16_MIN) ? 1 : 0;
    qlstm_cell(cell_params, gates.data(), cell.data(), h.data());
    hash = fingerprint(hash, gates.data(), gates.size() * 2);
    hash = fingerprint(hash, cell.data(), cell.size() * 2);
    hash = fingerprint(hash, h.data(), h.size());
  }
  qgemv_s8(qint_kernels(), head.params(), h.data(), logits.data());
  hash = fingerprint(hash, logits.data(), logits.size());
  MESSAGE("qint fingerprint: " << hash);
  CHECK(saturated_gates < 8 * gates.size() / 10);  // the gates span their range, mostly inside it
  CHECK(hash == 1645043985u);
}

TEST_CASE("qint: exp_s16 within 5 Q15 steps of double over [-16, 0], clamped below") {
  int worst = 0;
  for (int32_t q = -32768; q <= 0; ++q) {
    const double want = std::fmin(32767.0, 32768.0 * std::exp(double(q) / 2048.0));
    worst = std::max(worst, int(std::ceil(std::fabs(qint::exp_s16(q) - want))));
  }
  CHECK(worst <= 5);  // interpolation 4.0 near x = 0, plus the table's rounding
  CHECK(qint::exp_s16(0) == 32767);
  CHECK(qint::exp_s16(5) == 32767);
  CHECK(qint::exp_s16(-1000000) == qint::exp_s16(-32768));
}

TEST_CASE("qint: attention pooling against double, ragged valid lengths, same bits on every core") {
  constexpr size_t kSteps = 9, kFeatures = 24, kUnits = 16;
  const Gemv projection = make_gemv(kUnits, kFeatures, 404);
  std::vector<int32_t> projection_shift(projection.shift);
  for (auto& s : projection_shift) s += 7;  // pre-activations of about +-2 in Q3.12
  Lcg rng{77};
  std::vector<int8_t> x(kSteps * kFeatures), v(kUnits);
  for (auto& e : x) e = rng.s8();
  for (auto& e : v) e = int8_t(rng.in_range(-127, 127));
  QAttentionPoolParams p;
  p.steps = kSteps;
  p.features = kFeatures;
  p.units = kUnits;
  p.projection = projection.params();
  p.projection.shift = projection_shift.data();
  p.v = v.data();
  const double score_real = 4e-4, output_real = std::ldexp(1.0, -15);
  qint::FixedMultiplier m{};
  REQUIRE(qint::quantize_multiplier(score_real, &m));
  p.score_multiplier = m.multiplier;
  p.score_shift = m.shift;
  REQUIRE(qint::quantize_multiplier(output_real, &m));
  p.output_multiplier = m.multiplier;
  p.output_shift = m.shift;
  p.x_zero_point = -3;
  p.output_zero_point = 2;
  uint32_t hash = 2166136261u;
  for (size_t valid : {kSteps, size_t(5), size_t(1), size_t(0)}) {
    std::vector<int16_t> keys(kUnits), weights(kSteps, int16_t(-1));
    std::vector<int32_t> scores(kSteps);
    std::vector<int8_t> y(kFeatures);
    qattention_pool(qint_kernels(), p, x.data(), valid, keys.data(), scores.data(), weights.data(), y.data());
    if (valid == kSteps) {  // the scores spread: no weight takes (nearly) all
      CHECK(*std::max_element(weights.begin(), weights.end()) < 26000);
      CHECK(*std::min_element(weights.begin(), weights.end()) > 30);
    }
    hash = fingerprint(hash, weights.data(), weights.size() * 2);
    hash = fingerprint(hash, y.data(), y.size());
    // The double twin of the same integer problem.
    std::vector<double> score(valid), a(valid);
    for (size_t t = 0; t < valid; ++t) {
      double sum = 0;
      for (size_t u = 0; u < kUnits; ++u) {
        int64_t acc = projection.bias[u];
        for (size_t d = 0; d < kFeatures; ++d) acc += int64_t(x[t * kFeatures + d]) * projection.w[u * kFeatures + d];
        const double pre = std::fmax(-8.0, std::fmin(8.0, double(acc) * projection.real_multiplier[u] * 128.0 / 4096.0));
        sum += double(v[u]) * 32768.0 * std::tanh(pre);
      }
      score[t] = sum * score_real / 2048.0;
    }
    double largest = -1e300, total = 0;
    for (size_t t = 0; t < valid; ++t) largest = std::fmax(largest, score[t]);
    for (size_t t = 0; t < valid; ++t) total += a[t] = std::exp(score[t] - largest);
    for (size_t t = 0; t < kSteps; ++t) {
      const double want = t < valid ? a[t] / total : 0.0;
      CHECK(std::fabs(double(weights[t]) / 32768.0 - want) <= 2e-3);
    }
    for (size_t d = 0; d < kFeatures; ++d) {
      double pooled = 0;
      for (size_t t = 0; t < valid; ++t) pooled += a[t] / total * (double(x[t * kFeatures + d]) + 3.0);
      const double want = std::fmax(-128.0, std::fmin(127.0, pooled + 2.0));
      CHECK(std::fabs(double(y[d]) - want) <= 1.0);
    }
  }
  MESSAGE("qint attention pooling fingerprint: " << hash);
  CHECK(hash == 4187599287u);
}

TEST_CASE("qint: embedding rows requantized per row against double; hostile ids refused") {
  constexpr size_t kVocab = 11, kWidth = 13;
  Lcg rng{99};
  std::vector<int8_t> table(kVocab * kWidth);
  for (auto& e : table) e = int8_t(rng.in_range(-127, 127));
  std::vector<int32_t> multiplier(kVocab), shift(kVocab);
  std::vector<double> real(kVocab);
  for (size_t r = 0; r < kVocab; ++r) {
    real[r] = 0.3 + 1.5 * double(r) / kVocab;  // row scale / activation scale; > 1 clamps some
    qint::FixedMultiplier m{};
    REQUIRE(qint::quantize_multiplier(real[r], &m));
    multiplier[r] = m.multiplier;
    shift[r] = m.shift;
  }
  QEmbeddingParams p;
  p.vocab = kVocab;
  p.width = kWidth;
  p.table = table.data();
  p.multiplier = multiplier.data();
  p.shift = shift.data();
  p.output_zero_point = 4;
  const int32_t ids[] = {0, 10, 3, 3, 7};
  std::vector<int8_t> y(5 * kWidth);
  CHECK(qembedding_gather(p, ids, 5, y.data()));
  for (size_t t = 0; t < 5; ++t) {
    for (size_t d = 0; d < kWidth; ++d) {
      const double v = double(table[size_t(ids[t]) * kWidth + d]) * real[size_t(ids[t])];
      const double want = std::fmax(-128.0, std::fmin(127.0, std::nearbyint(v) + 4.0));
      CHECK(std::fabs(double(y[t * kWidth + d]) - want) <= 1.0);
    }
  }
  const int32_t hostile[] = {3, -1, int32_t(kVocab), INT32_MAX};
  std::vector<int8_t> z(4 * kWidth);
  CHECK_FALSE(qembedding_gather(p, hostile, 4, z.data()));
  for (size_t d = 0; d < kWidth; ++d) {
    CHECK(z[kWidth + d] == 4);
    CHECK(z[2 * kWidth + d] == 4);
    CHECK(z[3 * kWidth + d] == 4);
    CHECK(z[d] == y[2 * kWidth + d]);  // the valid id beside them is still gathered
  }
}
