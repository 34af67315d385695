#include "tiny_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace focal {
namespace testing {
namespace {

constexpr int kWidth = kTinyModelWidth;
constexpr int kHeads = 2;
constexpr int kKvHeads = 1;
constexpr int kHeadDim = 4;
constexpr int kHidden = 16;

// Weights are drawn in this order from consecutive seeds, by name.
struct TinyWeights {
  std::vector<float> wq, bq, wk, bk, wv, bv, wo, bo, gamma, beta, w1, b1, w2, b2;
};

TinyWeights make_weights(uint32_t seed) {
  TinyWeights w;
  const int kv = kKvHeads * kHeadDim;
  w.wq = random_values(kWidth * kWidth, seed + 1);
  w.bq = random_values(kWidth, seed + 2);
  w.wk = random_values(kv * kWidth, seed + 3);
  w.bk = random_values(kv, seed + 4);
  w.wv = random_values(kv * kWidth, seed + 5);
  w.bv = random_values(kv, seed + 6);
  w.wo = random_values(kWidth * kWidth, seed + 7);
  w.bo = random_values(kWidth, seed + 8);
  w.gamma = random_values(kWidth, seed + 9, 0.5f, 1.5f);
  w.beta = random_values(kWidth, seed + 10);
  w.w1 = random_values(kHidden * kWidth, seed + 11);
  w.b1 = random_values(kHidden, seed + 12);
  w.w2 = random_values(kTinyClasses * kHidden, seed + 13);
  w.b2 = random_values(kTinyClasses, seed + 14);
  return w;
}

// y[r, o] = sum_i x[r, i] w[o, i] + b[o], in double.
std::vector<double> linear(const std::vector<double>& x, const std::vector<float>& w,
                           const std::vector<float>& b, int in, int out) {
  const size_t rows = x.size() / in;
  std::vector<double> y(rows * out);
  for (size_t r = 0; r < rows; ++r) {
    for (int o = 0; o < out; ++o) {
      double sum = b[o];
      for (int i = 0; i < in; ++i) sum += x[r * in + i] * double(w[o * in + i]);
      y[r * out + o] = sum;
    }
  }
  return y;
}

// Causal attention in double, two passes (max, then exp-sum), on [batch, seq, heads*dim].
std::vector<double> attention(const std::vector<double>& q, const std::vector<double>& k,
                              const std::vector<double>& v, int64_t batch, int64_t seq) {
  std::vector<double> out(q.size(), 0.0);
  const double scale = 1.0 / std::sqrt(double(kHeadDim));
  const int q_stride = kHeads * kHeadDim, kv_stride = kKvHeads * kHeadDim;
  for (int64_t b = 0; b < batch; ++b) {
    for (int h = 0; h < kHeads; ++h) {
      const int g = h / (kHeads / kKvHeads);
      for (int64_t i = 0; i < seq; ++i) {
        std::vector<double> scores(i + 1);
        double max_score = -INFINITY;
        for (int64_t j = 0; j <= i; ++j) {
          double s = 0;
          for (int d = 0; d < kHeadDim; ++d) {
            s += q[(b * seq + i) * q_stride + h * kHeadDim + d] *
                 k[(b * seq + j) * kv_stride + g * kHeadDim + d];
          }
          scores[j] = s * scale;
          max_score = std::max(max_score, scores[j]);
        }
        double sum = 0;
        for (double& s : scores) sum += (s = std::exp(s - max_score));
        for (int64_t j = 0; j <= i; ++j) {
          for (int d = 0; d < kHeadDim; ++d) {
            out[(b * seq + i) * q_stride + h * kHeadDim + d] +=
                scores[j] / sum * v[(b * seq + j) * kv_stride + g * kHeadDim + d];
          }
        }
      }
    }
  }
  return out;
}

void layernorm(std::vector<double>& x, const std::vector<float>& gamma,
               const std::vector<float>& beta) {
  for (size_t r = 0; r < x.size() / kWidth; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < kWidth; ++i) mean += x[r * kWidth + i] / kWidth;
    for (int i = 0; i < kWidth; ++i) var += std::pow(x[r * kWidth + i] - mean, 2) / kWidth;
    for (int i = 0; i < kWidth; ++i) {
      x[r * kWidth + i] = (x[r * kWidth + i] - mean) / std::sqrt(var + 1e-5) * gamma[i] + beta[i];
    }
  }
}

std::vector<uint8_t> as_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<uint8_t> as_f32_bytes(const std::vector<double>& values) {
  return as_bytes(std::vector<float>(values.begin(), values.end()));
}

}  // namespace

TinyTensors add_tiny_model(ModelWriter& writer, const TinyConfig& config) {
  const TinyWeights w = make_weights(config.seed);
  writer.set_dense_weight_type(config.weight_type);
  writer.set_int8_activations(config.int8_activations);
  const int batch = writer.add_symbol("batch", config.max_batch);
  const int seq = writer.add_symbol("seq", config.max_seq);
  const auto shape = [&](int64_t features) {
    return std::vector<int64_t>{config.max_batch, config.max_seq, features};
  };
  const std::vector<int32_t> dims = {batch, seq, -1};
  const int kv = kKvHeads * kHeadDim;

  const int x = writer.add_input("x", DType::kF32, shape(kWidth), dims);
  const int q = writer.add_activation("q", DType::kF32, shape(kWidth), dims);
  const int k = writer.add_activation("k", DType::kF32, shape(kv), dims);
  const int v = writer.add_activation("v", DType::kF32, shape(kv), dims);
  const int a = writer.add_activation("attention", DType::kF32, shape(kWidth), dims);
  const int o = writer.add_activation("attention_out", DType::kF32, shape(kWidth), dims);
  const int r = writer.add_activation("residual", DType::kF32, shape(kWidth), dims);
  const int n = writer.add_activation("normed", DType::kF32, shape(kWidth), dims);
  const int h = writer.add_activation("hidden", DType::kF32, shape(kHidden), dims);
  const int logits = writer.add_output("logits", DType::kF32, shape(kTinyClasses), dims);
  const int probs = writer.add_output("probs", DType::kF32, shape(kTinyClasses), dims);

  // Constants in a fixed order (function arguments have no evaluation order).
  const auto c = [&](const char* name, std::vector<int64_t> s, const std::vector<float>& values) {
    return writer.add_constant_f32(name, std::move(s), values);
  };
  const int wq = c("wq", {kWidth, kWidth}, w.wq), bq = c("bq", {kWidth}, w.bq);
  const int wk = c("wk", {kv, kWidth}, w.wk), bk = c("bk", {kv}, w.bk);
  const int wv = c("wv", {kv, kWidth}, w.wv), bv = c("bv", {kv}, w.bv);
  const int wo = c("wo", {kWidth, kWidth}, w.wo), bo = c("bo", {kWidth}, w.bo);
  const int gamma = c("gamma", {kWidth}, w.gamma), beta = c("beta", {kWidth}, w.beta);
  const int w1 = c("w1", {kHidden, kWidth}, w.w1), b1 = c("b1", {kHidden}, w.b1);
  const int w2 = c("w2", {kTinyClasses, kHidden}, w.w2), b2 = c("b2", {kTinyClasses}, w.b2);

  writer.add_dense("q_proj", x, wq, bq, q);
  writer.add_dense("k_proj", x, wk, bk, k);
  writer.add_dense("v_proj", x, wv, bv, v);
  writer.add_attention("attention", q, k, v, a, kHeads, kKvHeads, kHeadDim, /*causal=*/true);
  writer.add_dense("o_proj", a, wo, bo, o);
  writer.add_add("residual", x, o, r);
  writer.add_layernorm("norm", r, gamma, beta, n);
  writer.add_dense("ffn", n, w1, b1, h, fb::Activation_GeluErf);
  writer.add_dense("classifier", h, w2, b2, logits);
  writer.add_softmax("softmax", logits, probs);
  writer.set_metadata("tiny-attention-test", "focal tests", "tests/support/tiny_model.cpp");
  return {x, logits, probs};
}

TinyOutputs tiny_forward_double(const TinyConfig& config, const std::vector<float>& x_in,
                                int64_t batch, int64_t seq) {
  const TinyWeights w = make_weights(config.seed);
  const int kv = kKvHeads * kHeadDim;
  const std::vector<double> x(x_in.begin(), x_in.end());
  const auto q = linear(x, w.wq, w.bq, kWidth, kWidth);
  const auto k = linear(x, w.wk, w.bk, kWidth, kv);
  const auto v = linear(x, w.wv, w.bv, kWidth, kv);
  const auto o = linear(attention(q, k, v, batch, seq), w.wo, w.bo, kWidth, kWidth);
  std::vector<double> r(x.size());
  for (size_t i = 0; i < r.size(); ++i) r[i] = x[i] + o[i];
  layernorm(r, w.gamma, w.beta);
  auto hidden = linear(r, w.w1, w.b1, kWidth, kHidden);
  for (double& e : hidden) e = 0.5 * e * (1.0 + std::erf(e / std::sqrt(2.0)));
  TinyOutputs out;
  out.logits = linear(hidden, w.w2, w.b2, kHidden, kTinyClasses);
  out.probs = out.logits;
  for (size_t row = 0; row < out.probs.size() / kTinyClasses; ++row) {
    double* p = &out.probs[row * kTinyClasses];
    double max_logit = *std::max_element(p, p + kTinyClasses), sum = 0;
    for (int i = 0; i < kTinyClasses; ++i) sum += (p[i] = std::exp(p[i] - max_logit));
    for (int i = 0; i < kTinyClasses; ++i) p[i] /= sum;
  }
  return out;
}

std::vector<uint8_t> build_tiny_model(const TinyConfig& config) {
  ModelWriter writer;
  const TinyTensors tensors = add_tiny_model(writer, config);
  const int64_t batch = std::min<int64_t>(2, config.max_batch);
  const int64_t seq = std::min<int64_t>(5, config.max_seq);
  const std::vector<float> x =
      random_values(size_t(batch * seq * kWidth), config.seed + 100, -2.0f, 2.0f);
  const TinyOutputs expected = tiny_forward_double(config, x, batch, seq);
  SelfTestSpec test;
  test.inputs.push_back({tensors.x, {batch, seq, kWidth}, as_bytes(x)});
  test.expected_outputs.push_back(
      {tensors.logits, {batch, seq, kTinyClasses}, as_f32_bytes(expected.logits)});
  test.expected_outputs.push_back(
      {tensors.probs, {batch, seq, kTinyClasses}, as_f32_bytes(expected.probs)});
  // f32 weights: f32 rounding only. Quantized weights move the outputs by about their
  // relative rounding (f16 2^-11, bf16 2^-8, int8 1/254 of each row's largest weight);
  // int8 activations add as much again (1/254 of each row's largest input); int4 weights
  // (kI4) round to 1/14 of each group's largest weight.
  const bool f32 = config.weight_type == DType::kF32;
  const bool int8_activations = config.int8_activations && config.weight_type == DType::kI8;
  const float quantized = config.weight_type == DType::kI4 ? 0.3f : int8_activations ? 6e-2f : 3e-2f;
  test.atol = f32 ? 1e-5f : config.weight_type == DType::kF16 ? 2e-3f : quantized;
  test.rtol = f32 ? 1e-4f : config.weight_type == DType::kF16 ? 2e-3f : quantized;
  writer.add_self_test(std::move(test));
  auto file = writer.finish();
  return file.ok() ? file.value() : std::vector<uint8_t>();
}

}  // namespace testing
}  // namespace focal
