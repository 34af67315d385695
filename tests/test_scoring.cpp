// The attention scoring family (additive, Luong dot and general, concat with and without
// tanh) against its reference
// twins, both checked against a double-precision computation, on every instruction set
// this CPU has: source lengths and feature dims across the vector-width edges, key
// lengths (0 included), strided, shared and misaligned rows, extreme and equal scores,
// inspection weights, and refused parameters.
//
// Tolerance. A score is a sum of n terms (n = units or dims; dq + dk for general) whose
// magnitudes add up to T (computed in double; concat: dq + dk + 1 terms, then tanh,
// whose slope is at most 1). Rounding errors of f32 sums grow like
// sqrt(n) * u * T in practice (u = 2^-24; n * u * T is the never-reached worst case;
// tanh and exp2 are within 2 ulp). An error d in the scores moves a softmax weight w by
// at most w * 2 * max d and the context by 2 * max d * max|value|; normalization and the
// weighted sum add about sqrt(src_len) * u * max|value|. The test allows
//   |got - want| <= max|value| * u * (2 * (sqrt(n) + 2) * T + sqrt(src_len) + 4)
// on every context element, and the same with max|value| = 1 on every weight. The worst
// case measured on x86 (scalar, SSE2, AVX2, AVX-512) uses a quarter of it; it is ~1e-6
// for scores of order 1 and grows with the score magnitudes (scores of +-1e4 are only
// known to ~1e-3 in f32, so the bound is ~1e-2 there).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "focal/attention_scoring.h"
#include "dispatch/scoring_dispatch.h"
#include "dispatch/kernel_set.h"
#include "support/aligned_buffer.h"
#include "support/scoring_instance.h"
#include "support/random_values.h"

using namespace focal;
using focal::testing::AlignedBuffer;
using namespace focal::scoring_testing;

namespace {

struct Want {
  std::vector<double> weights, context;
  double tolerance_weights = 0, tolerance_context = 0;
};

// act(b + w_s . s + w_h . h_j) in double, and the magnitude of its argument.
void concat_score(const Instance& in, size_t j, double* score, double* magnitude) {
  const Problem& p = in.pr;
  const float* w = in.w.data() + p.misalign;
  double sum = in.bias[p.misalign];
  double total = std::fabs(sum);
  for (size_t q = 0; q < p.query_dim; ++q) {
    sum += double(w[q]) * in.q()[q];
    total += std::fabs(double(w[q]) * in.q()[q]);
  }
  for (size_t k = 0; k < p.dim; ++k) {
    sum += double(w[p.query_dim + k]) * in.key_at(j, k);
    total += std::fabs(double(w[p.query_dim + k]) * in.key_at(j, k));
  }
  *score = p.form == Form::kConcatTanh ? std::tanh(sum) : sum;
  *magnitude = total;
}

Want compute_double(const Instance& in) {
  const Problem& p = in.pr;
  const size_t valid = p.key_length < 0 ? p.src_len : size_t(p.key_length);
  std::vector<double> scores(p.src_len, 0.0);
  double max_magnitude = 0;  // T: the largest sum of |terms| of a score
  for (size_t j = 0; j < valid; ++j) {
    double sum = 0, magnitude = 0;
    if (p.form == Form::kAdditive) {
      for (size_t u = 0; u < p.dim; ++u) {
        const double t =
            double(in.v[p.misalign + u]) * std::tanh(double(in.q()[u]) + in.key_at(j, u));
        sum += t;
        magnitude += std::fabs(t);
      }
    } else if (p.form == Form::kDot) {
      for (size_t d = 0; d < p.dim; ++d) {
        const double t = double(in.q()[d]) * in.key_at(j, d);
        sum += t;
        magnitude += std::fabs(t);
      }
    } else if (is_concat(p.form)) {
      concat_score(in, j, &sum, &magnitude);
    } else {
      for (size_t q = 0; q < p.query_dim; ++q) {
        for (size_t k = 0; k < p.dim; ++k) {
          const double t = double(in.q()[q]) * in.w[p.misalign + q * p.dim + k] * in.key_at(j, k);
          sum += t;
          magnitude += std::fabs(t);
        }
      }
    }
    const double scale = p.form == Form::kAdditive ? 1.0 : std::fabs(double(p.scale));
    scores[j] = sum * (p.form == Form::kAdditive ? 1.0 : double(p.scale));
    max_magnitude = std::max(max_magnitude, magnitude * scale);
  }
  Want want;
  want.weights.assign(p.src_len, 0.0);
  want.context.assign(p.value_dim, 0.0);
  double m = -INFINITY;
  for (size_t j = 0; j < valid; ++j) m = std::max(m, scores[j]);
  double total = 0;
  for (size_t j = 0; j < valid; ++j) total += (want.weights[j] = std::exp(scores[j] - m));
  for (size_t j = 0; j < valid; ++j) want.weights[j] /= total;
  double max_value = 0;
  for (size_t j = 0; j < valid; ++j) {
    for (size_t d = 0; d < p.value_dim; ++d) {
      want.context[d] += want.weights[j] * in.value_at(j, d);
      max_value = std::max(max_value, std::fabs(double(in.value_at(j, d))));
    }
  }
  const double u = std::ldexp(1.0, -24);
  const size_t terms = p.form == Form::kGeneral ? p.query_dim + p.dim
                       : is_concat(p.form)      ? p.query_dim + p.dim + 1
                                                : p.dim;
  const double bound =
      u * (2 * (std::sqrt(double(terms)) + 2) * max_magnitude + std::sqrt(double(p.src_len)) + 4);
  want.tolerance_weights = bound;
  want.tolerance_context = max_value * bound + 1e-9;  // max_value is 0 when nothing is valid
  return want;
}

// The largest |got - want| / tolerance over context and weights (NaN counts as infinite);
// also checks that the weights of the valid positions sum to 1 and the rest are 0.
double worst_error(const Instance& in, const Want& want, bool with_weights = true) {
  const Problem& p = in.pr;
  double worst = 0;
  const auto check = [&](float got, double expected, double tolerance) {
    const double e = std::fabs(double(got) - expected) / tolerance;
    worst = std::isnan(got) ? INFINITY : std::max(worst, e);
  };
  for (size_t d = 0; d < p.value_dim; ++d)
    check(in.context[p.misalign + d], want.context[d], want.tolerance_context);
  if (!with_weights) return worst;
  const size_t valid = p.key_length < 0 ? p.src_len : size_t(p.key_length);
  double sum = 0;
  for (size_t j = 0; j < p.src_len; ++j) {
    const float got = in.weights[p.misalign + j];
    check(got, want.weights[j], want.tolerance_weights);
    sum += got;
    if (j >= valid) CHECK(got == 0.0f);
  }
  if (valid > 0) {
    CHECK(std::fabs(sum - 1.0) <= double(valid + 4) * std::ldexp(1.0, -23));
  } else {
    CHECK(sum == 0.0);
  }
  return worst;
}

void check_all_kernels(const Problem& problem) {
  CAPTURE(describe(problem));
  Instance in(problem);
  const Want want = compute_double(in);
  REQUIRE(in.run_reference().ok());
  CHECK(worst_error(in, want) <= 1.0);

  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  for (int t = 0; t < sets.count; ++t) {
    const kernels::KernelSet& set = *sets.sets[t];
    CAPTURE(std::string(set.isa));
    REQUIRE(in.run(set).ok());
    CHECK(worst_error(in, want) <= 1.0);
    // Without inspection weights (scores in the workspace): the same context, bitwise.
    const std::vector<float> context = in.context;
    REQUIRE(in.run(set, false).ok());
    CHECK(std::memcmp(context.data(), in.context.data(), context.size() * sizeof(float)) == 0);
    CHECK(std::isnan(in.weights[problem.misalign]));  // untouched
  }
}

// A refusal whose message contains `text`.
bool refused_with(const Status& s, const char* text) {
  return !s.ok() && std::string(s.message()).find(text) != std::string::npos;
}

const size_t kSrcLens[] = {1,  2,  3,  4,  5,  7,  8,   9,   15,  16,  17,
                           31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200};
const size_t kDims[] = {1, 3, 16, 17, 64, 100};

}  // namespace

TEST_CASE("scoring: every form, source lengths and dims across the vector edges") {
  for (Form form : kAllForms) {
    size_t n = 0;
    for (size_t src_len : kSrcLens) {
      for (size_t dim : kDims) {
        ++n;
        Problem p;
        p.form = form;
        p.src_len = src_len;
        p.dim = dim;
        p.query_dim = kDims[n % 6];  // general: dq != dk too
        p.value_dim = kDims[(n + 2) % 6];
        p.seed = uint32_t(src_len * 100 + dim);
        check_all_kernels(p);
      }
    }
  }
}

TEST_CASE("scoring: key lengths, 0 gives zero weights and a zero context") {
  for (Form form : kAllForms) {
    for (size_t src_len : {1, 5, 17, 64, 65, 200}) {
      for (size_t length : {size_t(0), size_t(1), src_len / 2, src_len - 1, src_len}) {
        Problem p;
        p.form = form;
        p.src_len = src_len;
        p.dim = 17;
        p.query_dim = 9;
        p.value_dim = 19;
        p.key_length = int32_t(length);
        check_all_kernels(p);
      }
    }
  }
  // Length 0: exactly zero, whatever the inputs.
  Problem p;
  p.src_len = 10;
  p.key_length = 0;
  Instance in(p);
  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  for (int t = 0; t < sets.count; ++t) {
    const kernels::KernelSet& set = *sets.sets[t];
    REQUIRE(in.run(set).ok());
    for (size_t d = 0; d < p.value_dim; ++d) CHECK(in.context[d] == 0.0f);
    for (size_t j = 0; j < p.src_len; ++j) CHECK(in.weights[j] == 0.0f);
  }
}

TEST_CASE("scoring: strided, shared and misaligned rows; scaled Luong") {
  for (Form form : kAllForms) {
    for (size_t dim : {3, 16, 17}) {
      Problem p;
      p.form = form;
      p.src_len = 37;
      p.dim = dim;
      p.query_dim = 5;
      p.value_dim = form == Form::kAdditive ? 21 : dim;
      p.key_pad = 2 * dim + 1;  // e.g. one sequence of [src_len, batch 3, dim]
      p.value_pad = 5;
      p.misalign = 1;
      p.scale = 1.0f / std::sqrt(float(dim));
      check_all_kernels(p);
      if (form != Form::kAdditive) {
        p.values_are_keys = true;  // the usual Luong case: values are the encoder states
        p.scale = -0.75f;
        check_all_kernels(p);
      }
    }
  }
}

TEST_CASE("scoring: extreme and equal scores") {
  for (Form form : kAllForms) {
    for (size_t dim : {1, 16, 17}) {
      for (size_t src_len : {3, 64, 129}) {
        Problem p;
        p.form = form;
        p.src_len = src_len;
        p.dim = dim;
        p.query_dim = dim;
        p.value_dim = 17;
        p.seed = uint32_t(src_len + dim);
        // Scores up to about +-1e4; tanh saturated (arguments up to +-200).
        if (form == Form::kAdditive) {
          p.query_range = 100.0f;
          p.key_range = 100.0f;
          p.v_range = 2e4f / float(dim);
        } else if (is_concat(form)) {  // both parts of w . [s; h_j] large
          p.query_range = 1e4f / float(dim);
          p.key_range = 1e4f / float(dim);
        } else {
          p.query_range = 2e4f / float(dim);
          p.key_range = form == Form::kGeneral ? 1.0f / float(dim) : 1.0f;
        }
        check_all_kernels(p);
        p.equal_keys = true;  // all scores equal (and large): uniform weights
        check_all_kernels(p);
        p.equal_keys = false;
        p.query_range = 0.0f;  // all scores exactly 0
        check_all_kernels(p);
      }
    }
  }
}

TEST_CASE("scoring: equal scores give exactly uniform weights on every kernel") {
  Problem p;
  p.form = Form::kDot;
  p.src_len = 64;  // a power of two: 1/64 is exact
  p.dim = 17;
  p.equal_keys = true;
  Instance in(p);
  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  for (int t = 0; t < sets.count; ++t) {
    const kernels::KernelSet& set = *sets.sets[t];
    CAPTURE(std::string(set.isa));
    REQUIRE(in.run(set).ok());
    for (size_t j = 0; j < p.src_len; ++j) CHECK(in.weights[j] == 1.0f / 64.0f);
  }
}

TEST_CASE("scoring: the public entry points run the best kernels") {
  const std::string isa = attention_scoring_isa();
  CHECK((isa == "scalar" || isa == "sse2" || isa == "avx2" || isa == "avx512" || isa == "neon64" ||
         isa == "neon" || isa == "mve"));
  for (Form form : kAllForms) {
    Problem p;
    p.form = form;
    p.src_len = 50;
    p.dim = 64;
    p.query_dim = 32;
    p.value_dim = 48;
    Instance in(p);
    const Want want = compute_double(in);
    AlignedBuffer workspace(in.workspace_bytes());
    in.clear();
    const Status status =
        form == Form::kAdditive
            ? additive_attention(in.additive(), workspace.data(), workspace.size())
            : luong_attention(in.luong(), workspace.data(), workspace.size());
    REQUIRE(status.ok());
    CHECK(worst_error(in, want) <= 1.0);
  }
}

TEST_CASE("scoring: invalid parameters are refused with a message") {
  const auto has = refused_with;
  Problem p;
  p.form = Form::kAdditive;
  Instance in(p);
  AlignedBuffer workspace(4096);
  void* ws = workspace.data();
  const size_t size = workspace.size();

  AdditiveAttentionParams a = in.additive();
  REQUIRE(additive_attention(a, ws, size).ok());
  a.units = 0;
  CHECK(has(additive_attention(a, ws, size), "units = 0 outside 1.."));
  CHECK(additive_attention_workspace_bytes(a) == 0);
  a = in.additive();
  a.src_len = 0;
  CHECK(has(additive_attention(a, ws, size), "src_len"));
  CHECK(has(additive_attention_reference(a), "src_len"));
  a = in.additive();
  a.value_dim = kMaxScoringDim + 1;
  CHECK(!additive_attention(a, ws, size).ok());
  a = in.additive();
  a.v = nullptr;
  CHECK(has(additive_attention(a, ws, size), "must not be null"));
  a = in.additive();
  a.context = nullptr;
  CHECK(!additive_attention_reference(a).ok());
  a = in.additive();
  a.keys_proj_stride = p.dim - 1;
  CHECK(has(additive_attention(a, ws, size), "keys_proj stride 15 is less than its row of 16"));
  a = in.additive();
  a.values_stride = SIZE_MAX / 8;
  CHECK(has(additive_attention(a, ws, size), "overflows"));
  a = in.additive();
  a.key_length = int32_t(p.src_len) + 1;
  CHECK(additive_attention(a, ws, size).code() == StatusCode::kOutOfRange);
  a.key_length = -2;
  CHECK(additive_attention(a, ws, size).code() == StatusCode::kOutOfRange);
  a = in.additive();
  CHECK(additive_attention(a, ws, additive_attention_workspace_bytes(a) - 1).code() ==
        StatusCode::kResourceExhausted);
  CHECK(additive_attention(a, nullptr, size).code() == StatusCode::kResourceExhausted);

  Problem pl;
  pl.form = Form::kGeneral;
  pl.query_dim = 5;
  Instance il(pl);
  LuongAttentionParams l = il.luong();
  REQUIRE(luong_attention(l, ws, size).ok());
  l.w = nullptr;
  CHECK(has(luong_attention(l, ws, size), "general score needs w"));
  l = il.luong();
  l.score = LuongScore::kDot;  // query_dim 5 != key_dim 16
  CHECK(has(luong_attention(l, ws, size), "query_dim == key_dim"));
  l.query_dim = l.key_dim;
  CHECK(has(luong_attention(l, ws, size), "takes no w"));
  l.w = nullptr;
  // A query of key_dim floats: the instance's holds only its query_dim 5 (reading 16 of
  // them was past its end, which host-asan caught once the AVX-512 body loaded them).
  const std::vector<float> dot_query = testing::random_values(l.key_dim, 77, -1.0f, 1.0f);
  l.query = dot_query.data();
  CHECK(luong_attention(l, ws, size).ok());
  l = il.luong();
  l.score = static_cast<LuongScore>(7);
  CHECK(has(luong_attention(l, ws, size), "unknown score"));
  CHECK(luong_attention_workspace_bytes(l) == 0);
  l = il.luong();
  l.scale = INFINITY;
  CHECK(has(luong_attention(l, ws, size), "scale must be finite"));
  l = il.luong();
  l.keys = nullptr;
  CHECK(has(luong_attention_reference(l), "must not be null"));
  l = il.luong();
  l.key_dim = kMaxScoringDim + 1;
  CHECK(has(luong_attention(l, ws, size), "key_dim"));
  l = il.luong();
  l.key_length = 100;
  CHECK(luong_attention(l, ws, size).code() == StatusCode::kOutOfRange);
  l = il.luong();
  CHECK(luong_attention(l, ws, luong_attention_workspace_bytes(l) - 1).code() ==
        StatusCode::kResourceExhausted);
}

TEST_CASE("scoring: concat takes w, an optional bias and tanh; the other scores take neither") {
  AlignedBuffer workspace(4096);
  const auto run = [&](const LuongAttentionParams& params) {
    return luong_attention(params, workspace.data(), workspace.size());
  };
  Problem concat;
  concat.form = Form::kConcatTanh;
  concat.query_dim = 5;
  Instance in(concat);
  LuongAttentionParams params = in.luong();
  REQUIRE(run(params).ok());
  params.bias = nullptr;  // optional
  CHECK(run(params).ok());
  CHECK(luong_attention_reference(params).ok());
  params.w = nullptr;
  CHECK(refused_with(run(params), "concat score needs w [query_dim + key_dim]"));
  CHECK(refused_with(luong_attention_reference(params), "concat score needs w"));

  concat.form = Form::kGeneral;
  Instance general(concat);
  params = general.luong();
  params.tanh = true;
  CHECK(refused_with(run(params), "tanh is for the concat score only"));
  params.tanh = false;
  params.bias = general.bias.data();
  CHECK(refused_with(run(params), "bias is for the concat score only"));
}
