// The attention kernel family against its reference twin (itself checked against a
// double-precision computation), on every instruction set this CPU has: shapes across
// the tile edges, every mask, grouped-query, decode with split-KV, f16 K/V, strided
// layouts, extreme logits, inspection weights, and bitwise equality across workers; int8
// K/V with one scale per key and kv head, on the same problems.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "dispatch/attention_dispatch.h"
#include "focal/attention.h"
#include "simd/vec_scalar.hpp"
#include "dispatch/kernel_set.h"
#include "support/aligned_buffer.h"
#include "support/emulation.h"
#include "support/random_values.h"
#if !defined(FOCAL_TESTS_BARE_METAL)
#include "thread_pool.h"
#endif

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {


struct Problem {
  size_t batch = 1, heads = 2, kv_heads = 1, q_len = 5, kv_len = 7, head_dim = 8;
  bool causal = false;
  int64_t causal_offset = 0;
  int64_t window = 0;
  bool padding = false;
  bool bias = false;
  bool relative = false;  // with bias: one row per head by j - i (q stride -1), T5's relative position bias
  bool heads_first = false;  // [batch, heads, seq, dim] instead of [batch, seq, heads, dim]
  KvType kv_type = KvType::kF32;
  float value_range = 1.0f;
  bool weights = false;
  uint32_t seed = 1;
};

std::string describe(const Problem& p) {
  return "b" + std::to_string(p.batch) + " h" + std::to_string(p.heads) + "/" +
         std::to_string(p.kv_heads) + " q" + std::to_string(p.q_len) + " k" +
         std::to_string(p.kv_len) + " d" + std::to_string(p.head_dim) +
         (p.causal ? " causal" + std::to_string(p.causal_offset) : "") +
         (p.window ? " window" + std::to_string(p.window) : "") + (p.padding ? " pad" : "") +
         (p.bias ? (p.relative ? " relative-bias" : " bias") : "") + (p.heads_first ? " bhsd" : "") +
         (p.kv_type == KvType::kF16 ? " f16" : p.kv_type == KvType::kI8 ? " i8" : "") + " range" +
         std::to_string(p.value_range);
}

// Owns the buffers of one problem and fills AttentionParams for it.
struct Instance {
  Problem pr;
  std::vector<float> q, k, v, bias, out;
  std::vector<uint16_t> k16, v16;
  std::vector<int8_t> k8, v8;
  std::vector<float> k_scales, v_scales;  // int8: [batch, seq, kv_heads] in every layout
  std::vector<int32_t> lengths;
  std::vector<float> weights;

  explicit Instance(const Problem& p) : pr(p) {
    q = testing::random_values(p.batch * p.q_len * p.heads * p.head_dim, p.seed, -p.value_range, p.value_range);
    k = testing::random_values(p.batch * p.kv_len * p.kv_heads * p.head_dim, p.seed + 1, -p.value_range, p.value_range);
    v = testing::random_values(p.batch * p.kv_len * p.kv_heads * p.head_dim, p.seed + 2, -1, 1);
    if (p.kv_type == KvType::kF16) {
      for (float& x : k) x = simd::half_to_float(simd::float_to_half(x));  // exact in both forms
      for (float& x : v) x = simd::half_to_float(simd::float_to_half(x));
      for (float x : k) k16.push_back(simd::float_to_half(x));
      for (float x : v) v16.push_back(simd::float_to_half(x));
    }
    if (p.kv_type == KvType::kI8) {
      quantize(&k, &k8, &k_scales);
      quantize(&v, &v8, &v_scales);
    }
    const size_t bias_size = p.relative ? p.heads * relative_row() : p.batch * p.heads * p.q_len * p.kv_len;
    if (p.bias) bias = testing::random_values(bias_size, p.seed + 3, -2, 2);
    if (p.padding) {
      for (size_t b = 0; b < p.batch; ++b) lengths.push_back(int32_t((b * 7 + 3) % (p.kv_len + 1)));
    }
    out.assign(p.batch * p.q_len * p.heads * p.head_dim, NAN);
    if (p.weights) weights.assign(p.batch * p.heads * p.q_len * p.kv_len, NAN);
  }

  // Symmetric int8 per (batch, key, kv head) of K or V in params()'s layout; `x` becomes
  // the values the int8 stand for, so the double reference sees what the kernels read.
  void quantize(std::vector<float>* x, std::vector<int8_t>* ints, std::vector<float>* scales) const {
    const AttentionStrides s = strides(pr.kv_len, pr.kv_heads);
    ints->assign(x->size(), 0);
    scales->assign(pr.batch * pr.kv_len * pr.kv_heads, 0.0f);
    for (size_t b = 0; b < pr.batch; ++b)
      for (size_t j = 0; j < pr.kv_len; ++j)
        for (size_t g = 0; g < pr.kv_heads; ++g) {
          const size_t at = b * s.batch + j * s.seq + g * s.head;
          float max_abs = 0.0f;
          for (size_t d = 0; d < pr.head_dim; ++d) max_abs = std::max(max_abs, std::fabs((*x)[at + d]));
          const float scale = max_abs / 127.0f;
          (*scales)[(b * pr.kv_len + j) * pr.kv_heads + g] = scale;
          for (size_t d = 0; d < pr.head_dim; ++d) {
            const float r = scale > 0.0f ? std::nearbyint((*x)[at + d] / scale) : 0.0f;
            (*ints)[at + d] = static_cast<int8_t>(r);
            (*x)[at + d] = r * scale;
          }
        }
  }

  // A relative bias row: distances j - i from -(q_len - 1) to kv_len - 1.
  size_t relative_row() const { return pr.q_len + pr.kv_len - 1; }

  double bias_value(size_t b, size_t h, size_t i, size_t j) const {
    if (pr.relative) return bias[h * relative_row() + pr.q_len - 1 + j - i];
    return bias[((b * pr.heads + h) * pr.q_len + i) * pr.kv_len + j];
  }

  AttentionStrides strides(size_t seq, size_t heads) const {
    AttentionStrides s;
    s.batch = seq * heads * pr.head_dim;
    s.seq = pr.heads_first ? pr.head_dim : heads * pr.head_dim;
    s.head = pr.heads_first ? seq * pr.head_dim : pr.head_dim;
    return s;
  }

  AttentionParams params() {
    AttentionParams a;
    a.batch = pr.batch;
    a.heads = pr.heads;
    a.kv_heads = pr.kv_heads;
    a.q_len = pr.q_len;
    a.kv_len = pr.kv_len;
    a.head_dim = pr.head_dim;
    a.mask.causal = pr.causal;
    a.mask.causal_offset = pr.causal_offset;
    a.mask.window = pr.window;
    if (pr.padding) a.mask.key_lengths = lengths.data();
    if (pr.bias && pr.relative) {  // row h's entry for (i, j) = (0, 0) is distance 0
      a.mask.bias = bias.data() + pr.q_len - 1;
      a.mask.bias_head_stride = relative_row();
      a.mask.bias_q_stride = -1;
    } else if (pr.bias) {
      a.mask.bias = bias.data();
      a.mask.bias_batch_stride = pr.heads * pr.q_len * pr.kv_len;
      a.mask.bias_head_stride = pr.q_len * pr.kv_len;
      a.mask.bias_q_stride = pr.kv_len;
    }
    a.kv_type = pr.kv_type;
    a.q = q.data();
    a.q_strides = strides(pr.q_len, pr.heads);
    a.k = pr.kv_type == KvType::kF16 ? static_cast<const void*>(k16.data())
          : pr.kv_type == KvType::kI8 ? static_cast<const void*>(k8.data())
                                      : k.data();
    a.v = pr.kv_type == KvType::kF16 ? static_cast<const void*>(v16.data())
          : pr.kv_type == KvType::kI8 ? static_cast<const void*>(v8.data())
                                      : v.data();
    a.k_strides = strides(pr.kv_len, pr.kv_heads);
    a.v_strides = a.k_strides;
    if (pr.kv_type == KvType::kI8) {
      a.k_scales = k_scales.data();
      a.v_scales = v_scales.data();
      a.k_scale_strides = AttentionStrides{pr.kv_len * pr.kv_heads, pr.kv_heads, 1};
      a.v_scale_strides = a.k_scale_strides;
    }
    a.out = out.data();
    a.out_strides = strides(pr.q_len, pr.heads);
    if (pr.weights) a.weights = weights.data();
    return a;
  }
};

// Double-precision attention for one problem, [b][i][h][d] order.
std::vector<double> attention_double(Instance& in) {
  const Problem& p = in.pr;
  AttentionParams a = in.params();
  std::vector<double> result(p.batch * p.q_len * p.heads * p.head_dim, 0.0);
  const double scale = 1.0 / std::sqrt(double(p.head_dim));
  for (size_t b = 0; b < p.batch; ++b)
    for (size_t h = 0; h < p.heads; ++h)
      for (size_t i = 0; i < p.q_len; ++i) {
        const size_t g = h / (p.heads / p.kv_heads);
        std::vector<double> s(p.kv_len, -INFINITY);
        double m = -INFINITY;
        for (size_t j = 0; j < p.kv_len; ++j) {
          int64_t last = int64_t(i) + p.causal_offset;
          const bool visible = (!p.padding || int32_t(j) < in.lengths[b]) &&
                               (!p.causal || int64_t(j) <= last) &&
                               (p.window == 0 || int64_t(j) > last - p.window);
          if (!visible) continue;
          double dot = 0;
          for (size_t d = 0; d < p.head_dim; ++d)
            dot += double(in.q[b * a.q_strides.batch + i * a.q_strides.seq + h * a.q_strides.head + d]) *
                   in.k[b * a.k_strides.batch + j * a.k_strides.seq + g * a.k_strides.head + d];
          s[j] = dot * scale + (p.bias ? in.bias_value(b, h, i, j) : 0.0);
          m = std::max(m, s[j]);
        }
        double sum = 0;
        for (double& x : s) sum += (x = m == -INFINITY ? 0.0 : std::exp(x - m));
        for (size_t j = 0; j < p.kv_len; ++j)
          for (size_t d = 0; d < p.head_dim; ++d)
            result[((b * p.q_len + i) * p.heads + h) * p.head_dim + d] +=
                sum > 0 ? s[j] / sum * in.v[b * a.v_strides.batch + j * a.v_strides.seq + g * a.v_strides.head + d] : 0.0;
      }
  return result;
}

// Largest |got - want| / (atol + rtol |want|) over the output.
double worst_error(Instance& in, const std::vector<double>& want, double atol, double rtol) {
  AttentionParams a = in.params();
  double worst = 0;
  const Problem& p = in.pr;
  for (size_t b = 0; b < p.batch; ++b)
    for (size_t i = 0; i < p.q_len; ++i)
      for (size_t h = 0; h < p.heads; ++h)
        for (size_t d = 0; d < p.head_dim; ++d) {
          const double w = want[((b * p.q_len + i) * p.heads + h) * p.head_dim + d];
          const double g = in.out[b * a.out_strides.batch + i * a.out_strides.seq + h * a.out_strides.head + d];
          const double e = std::fabs(g - w) / (atol + rtol * std::fabs(w));
          worst = std::isnan(g) ? INFINITY : std::max(worst, e);
        }
  return worst;
}

void check_all_kernels(const Problem& problem) {
  CAPTURE(describe(problem));
  Instance in(problem);
  const std::vector<double> want = attention_double(in);
  // f32 accumulation over up to a few hundred keys; values within |1|.
  const double atol = 2e-5, rtol = 2e-4;
  REQUIRE(attention_reference(in.params()).ok());
  CHECK(worst_error(in, want, atol, rtol) <= 1.0);

  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  for (int t = 0; t < sets.count; ++t) {
    const kernels::KernelSet& set = *sets.sets[t];
    CAPTURE(std::string(set.isa));
    std::fill(in.out.begin(), in.out.end(), NAN);
    const AttentionParams a = in.params();
    AlignedBuffer workspace(attention_workspace_bytes(a, 1));
    REQUIRE(attention_with_kernels(a, set, workspace.data(), workspace.size(), nullptr).ok());
    CHECK(worst_error(in, want, atol, rtol) <= 1.0);
  }
}

}  // namespace

TEST_CASE("attention: shapes across the tile edges") {
  for (size_t q_len : {1, 3, 4, 17, 63, 64, 65, 130}) {
    for (size_t kv_len : {1, 2, 63, 64, 65, 200}) {
      Problem p;
      p.q_len = q_len;
      p.kv_len = kv_len;
      p.head_dim = 8 + q_len % 3;  // odd dims too
      p.seed = uint32_t(q_len * 1000 + kv_len);
      check_all_kernels(p);
    }
  }
}

TEST_CASE("attention: head dims 1 to 256, fast paths and odd sizes") {
  for (size_t head_dim : {1, 5, 15, 16, 17, 32, 64, 100, 128, 256}) {
    for (KvType kv_type : {KvType::kF32, KvType::kI8}) {
      for (size_t q_len : {1, 9}) {  // decode streams (head_dim a multiple of the vector), prefill packs
        Problem p;
        p.head_dim = head_dim;
        p.q_len = q_len;
        p.kv_len = 70;
        p.kv_type = kv_type;
        check_all_kernels(p);
      }
    }
  }
}

TEST_CASE("attention: masks") {
  for (int variant = 0; variant < 8; ++variant) {
    Problem p;
    p.batch = 3;
    p.q_len = 40;
    p.kv_len = 90;
    p.causal = variant & 1;
    p.causal_offset = p.causal ? 50 : 0;
    p.padding = variant & 2;
    p.bias = variant & 4;
    check_all_kernels(p);
  }
  Problem window;
  window.q_len = 70;
  window.kv_len = 70;
  window.causal = true;
  window.window = 9;
  check_all_kernels(window);
  Problem empty_rows;  // negative offset: the first queries see nothing -> zeros
  empty_rows.q_len = 20;
  empty_rows.kv_len = 20;
  empty_rows.causal = true;
  empty_rows.causal_offset = -5;
  check_all_kernels(empty_rows);
}

TEST_CASE("attention: relative position bias rows (T5) in prefill, decode and split-KV") {
  // The bias read by key - query distance from one row per head: prefill tiles across
  // block edges with padding, a causal decoder, decode steps over a cache (one row, the
  // query at the cached length) and the long split-KV decode.
  struct Shape {
    size_t q_len, kv_len;
    bool causal, padding;
  };
  for (const Shape& s : {Shape{70, 70, false, true}, Shape{33, 33, true, false}, Shape{1, 90, true, false},
                         Shape{4, 600, true, false}}) {
    Problem p;
    p.batch = 2;
    p.heads = 3;
    p.kv_heads = 3;
    p.head_dim = 16;
    p.q_len = s.q_len;
    p.kv_len = s.kv_len;
    p.causal = s.causal;
    p.causal_offset = s.causal ? int64_t(s.kv_len - s.q_len) : 0;
    p.padding = s.padding;
    p.bias = true;
    p.relative = true;
    check_all_kernels(p);
  }
}

TEST_CASE("attention: grouped-query, multi-query, layouts, f16 and int8") {
  for (size_t kv_heads : {1, 2, 8}) {
    for (bool heads_first : {false, true}) {
      for (KvType kv_type : {KvType::kF32, KvType::kF16, KvType::kI8}) {
        Problem p;
        p.heads = 8;
        p.kv_heads = kv_heads;
        p.q_len = 33;
        p.kv_len = 75;
        p.heads_first = heads_first;
        p.kv_type = kv_type;
        check_all_kernels(p);
      }
    }
  }
}

TEST_CASE("attention: decode over long caches with split-KV") {
  for (size_t kv_len : {511, 512, 513, 1500}) {
    for (size_t q_len : {1, 4}) {
      Problem p;
      p.heads = 4;
      p.kv_heads = 2;
      p.q_len = q_len;
      p.kv_len = kv_len;
      p.head_dim = 32;
      p.causal = true;
      p.causal_offset = int64_t(kv_len - q_len);
      for (KvType kv_type : {KvType::kF32, KvType::kF16, KvType::kI8}) {
        p.kv_type = kv_type;
        check_all_kernels(p);
      }
    }
  }
}

#if !defined(FOCAL_TESTS_BARE_METAL)  // its K and V (several MB) exceed a firmware's RAM
TEST_CASE("attention: int8 decode over a 4100-key cache, GQA and a ragged dim") {
  for (size_t head_dim : {64, 24}) {  // 24: packed path on 16-wide vectors, streaming on narrower
    Problem p;
    p.heads = 6;
    p.kv_heads = 2;
    p.q_len = 1;
    p.kv_len = 4100;  // 9 chunks, the last one short
    p.head_dim = head_dim;
    p.kv_type = KvType::kI8;
    check_all_kernels(p);
  }
}
#endif

TEST_CASE("attention: extreme logits") {
  for (float range : {0.0f, 100.0f}) {  // all equal; scores up to about +-1e4 * 8
    for (KvType kv_type : {KvType::kF32, KvType::kI8}) {  // int8: all-zero rows (scale 0), then +-127
      for (size_t q_len : {2, 20}) {
        Problem p;
        p.q_len = q_len;
        p.kv_len = 100;
        p.head_dim = 16;
        p.value_range = range;
        p.causal = true;
        p.causal_offset = 80;
        p.kv_type = kv_type;
        check_all_kernels(p);
      }
    }
  }
}

#if !defined(FOCAL_TESTS_BARE_METAL)  // firmware has no threads
TEST_CASE("attention: bitwise identical for 1, 2 and 3 workers" *
          doctest::skip(testing::kUnderEmulation)) {
  // Decode with split-KV, prefill over several tasks, int8; then decode in one key chunk
  // with its 4 kv heads cut into one range per worker (2 + 2; 1 + 1 + 2), in f16.
  for (int form = 0; form < 4; ++form) {
    const size_t q_len = form == 1 ? 300 : form == 2 ? 2 : 1;
    const bool one_chunk = form == 3;
    CAPTURE(form);
    Problem p;
    p.kv_type = form == 2 ? KvType::kI8 : one_chunk ? KvType::kF16 : KvType::kF32;
    p.batch = one_chunk ? 1 : 2;
    p.heads = one_chunk ? 8 : 4;
    p.kv_heads = one_chunk ? 4 : 2;
    p.q_len = q_len;
    p.kv_len = one_chunk ? 300 : 1200;
    p.head_dim = 64;
    p.causal = true;
    p.causal_offset = int64_t(p.kv_len - q_len);
    Instance in(p);
    std::vector<float> single;
    for (int workers : {1, 2, 3}) {
      CAPTURE(workers);
      ThreadPool pool(workers);
      const AttentionParams a = in.params();
      AlignedBuffer workspace(attention_workspace_bytes(a, workers));
      std::fill(in.out.begin(), in.out.end(), NAN);
      REQUIRE(attention(a, workspace.data(), workspace.size(), &pool).ok());
      if (workers == 1) {
        single = in.out;
      } else {
        CHECK(std::memcmp(single.data(), in.out.data(), single.size() * sizeof(float)) == 0);
      }
    }
  }
}
#endif

TEST_CASE("attention: inspection weights match the reference and rows sum to 1") {
  Problem p;
  p.heads = 3;
  p.kv_heads = 3;
  p.q_len = 10;
  p.kv_len = 30;
  p.causal = true;
  p.causal_offset = 20;
  p.weights = true;
  Instance in(p);
  AttentionParams a = in.params();
  a.weights_heads = 0b101;  // heads 0 and 2
  AlignedBuffer workspace(attention_workspace_bytes(a, 1));
  REQUIRE(attention(a, workspace.data(), workspace.size()).ok());
  for (size_t h = 0; h < 3; ++h) {
    for (size_t i = 0; i < p.q_len; ++i) {
      const float* w = &in.weights[(h * p.q_len + i) * p.kv_len];
      if (h == 1) {
        CHECK(std::isnan(w[0]));  // not requested: untouched
        continue;
      }
      double sum = 0;
      for (size_t j = 0; j < p.kv_len; ++j) sum += w[j];
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
      CHECK(w[p.kv_len - 1] == (i == p.q_len - 1 ? w[p.kv_len - 1] : 0.0f));  // causal zeros
    }
  }
}

TEST_CASE("attention: invalid problems are refused with a message") {
  Problem p;
  Instance in(p);
  AttentionParams a = in.params();
  AlignedBuffer workspace(attention_workspace_bytes(a, 1));
  a.kv_heads = 3;
  CHECK(std::string(attention(a, workspace.data(), workspace.size()).message()).find("kv_heads must divide heads") != std::string::npos);
  a = in.params();
  a.head_dim = 300;
  CHECK(!attention(a, workspace.data(), workspace.size()).ok());
  a = in.params();
  CHECK(attention(a, workspace.data(), 16).code() == StatusCode::kResourceExhausted);
  a.out = nullptr;
  CHECK(!attention(a, workspace.data(), workspace.size()).ok());
  a = in.params();
  const int32_t too_long[1] = {100};
  a.mask.key_lengths = too_long;
  CHECK(attention(a, workspace.data(), workspace.size()).code() == StatusCode::kOutOfRange);
  a = in.params();
  a.kv_type = KvType::kI8;  // int8 K and V without their scales
  CHECK(std::string(attention(a, workspace.data(), workspace.size()).message()).find("k_scales") != std::string::npos);
  a.kv_type = static_cast<KvType>(3);
  CHECK(std::string(attention(a, workspace.data(), workspace.size()).message()).find("unknown kv_type") != std::string::npos);
}

namespace {

// Runs the reference and every usable kernel on `in`; calls check() after each.
template <class Check>
void for_each_kernel(Instance& in, const Check& check) {
  REQUIRE(attention_reference(in.params()).ok());
  check("reference");
  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  for (int t = 0; t < sets.count; ++t) {
    const kernels::KernelSet& set = *sets.sets[t];
    std::fill(in.out.begin(), in.out.end(), 0.0f);
    const AttentionParams a = in.params();
    AlignedBuffer workspace(attention_workspace_bytes(a, 1));
    REQUIRE(attention_with_kernels(a, set, workspace.data(), workspace.size(), nullptr).ok());
    check(set.isa);
  }
}

// How many of output row (b, i, h)'s values are NaN.
size_t nan_count(Instance& in, size_t b, size_t i, size_t h) {
  const AttentionParams a = in.params();
  size_t count = 0;
  for (size_t d = 0; d < in.pr.head_dim; ++d) {
    count += std::isnan(in.out[b * a.out_strides.batch + i * a.out_strides.seq + h * a.out_strides.head + d]) ? 1 : 0;
  }
  return count;
}

}  // namespace

// PyTorch's softmax gives NaN for a row with a NaN score (NaN or Inf inputs); focal used
// to give zeros when every visible score of a row was NaN, hiding the fault.
TEST_CASE("hostile: a NaN or Inf query row gives NaN, not zeros, on every kernel") {
  for (size_t kv_len : {size_t(100), size_t(1500)}) {  // prefill tiles; decode split into chunks
    for (float poison : {NAN, INFINITY}) {
      Problem p;
      p.q_len = kv_len > 1000 ? 2 : 20;  // decode (<= 16 queries) splits 1500 keys into 3 chunks
      p.kv_len = kv_len;
      p.heads = 2;
      Instance in(p);
      const AttentionParams a = in.params();
      const size_t row = 1, head = 1;  // poison every element of query (row, head)
      for (size_t d = 0; d < p.head_dim; ++d) in.q[row * a.q_strides.seq + head * a.q_strides.head + d] = poison;
      for_each_kernel(in, [&](const char* isa) {
        CAPTURE(std::string(isa));
        CAPTURE(kv_len);
        CAPTURE(poison);
        CHECK(nan_count(in, 0, row, head) == p.head_dim);
        CHECK(nan_count(in, 0, row, 0) == 0);  // the other head of the row is untouched
        CHECK(nan_count(in, 0, 0, head) == 0);
      });
    }
  }
}

TEST_CASE("hostile: a NaN key reaches every query that sees it, on every kernel") {
  Problem p;
  p.q_len = 20;
  p.kv_len = 130;
  p.causal = true;  // query i sees keys 0..i+110
  p.causal_offset = 110;
  Instance in(p);
  const AttentionParams a = in.params();
  const size_t key = 125;  // seen by queries 15 and later only
  for (size_t d = 0; d < p.head_dim; ++d) in.k[key * a.k_strides.seq + d] = NAN;
  for_each_kernel(in, [&](const char* isa) {
    CAPTURE(std::string(isa));
    for (size_t i = 0; i < p.q_len; ++i) {
      CAPTURE(i);
      CHECK(nan_count(in, 0, i, 0) == (i >= 15 ? p.head_dim : 0));
    }
  });
}

// Found by clang-tidy (clang-analyzer-core.DivideZero): batch * kv_heads wrapped to 0
// and divided the prefill split; the workspace size could wrap to a small number.
TEST_CASE("hostile: attention sizes whose workspace overflows size_t are refused") {
  float dummy[16] = {};
  AttentionParams a;
  a.heads = 2;
  a.kv_heads = 2;
  a.q_len = 32;  // prefill: the split by batch * kv_heads
  a.kv_len = 32;
  a.head_dim = 16;
  a.q = a.out = dummy;
  a.k = a.v = dummy;
  a.batch = SIZE_MAX / 2 + 1;  // batch * kv_heads == 0 in size_t
  CHECK(attention_workspace_bytes(a, 1) == 0);
  const Status refused = attention(a, dummy, sizeof(dummy));
  CHECK(refused.code() == StatusCode::kInvalidArgument);
  CHECK(std::string(refused.message()).find("beyond size_t") != std::string::npos);

  // One worker's scratch fits (on 64-bit), INT_MAX workers' does not.
  a.batch = 1;
  a.kv_len = size_t(1) << 31;
  a.head_dim = 256;
  CHECK(attention_workspace_bytes(a, 2147483647) == 0);
}
