#include "focal/generate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace focal {
namespace {

uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// NaN sorts below everything, so a broken logit is never chosen over a real one.
float ordered(float x) { return x == x ? x : -INFINITY; }

}  // namespace

// cppcheck-suppress uninitMemberVar ; the loop seeds all four words of s_
Random::Random(uint64_t seed) {
  for (uint64_t& s : s_) s = splitmix64(&seed);
}

uint64_t Random::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

float Random::uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }

Result<Sampler> Sampler::create(const SamplingOptions& options, size_t vocab, void* scratch,
                                size_t scratch_bytes) {
  if (vocab == 0 || scratch == nullptr || scratch_bytes < sampler_scratch_bytes(vocab) ||
      reinterpret_cast<uintptr_t>(scratch) % 4 != 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "sampler needs %zu bytes of 4-byte aligned scratch for a vocabulary of %zu",
                         sampler_scratch_bytes(vocab), vocab);
  }
  if (!(options.temperature >= 0.0f) || !std::isfinite(options.temperature) || options.top_k < 0 ||
      !(options.top_p > 0.0f && options.top_p <= 1.0f)) {
    return Status::error(StatusCode::kInvalidArgument,
                         "temperature must be >= 0, top_k >= 0 and top_p in (0, 1]");
  }
  float* probs = static_cast<float*>(scratch);
  int32_t* ids = reinterpret_cast<int32_t*>(probs + vocab);
  return Sampler(options, vocab, probs, ids);
}

// Puts the candidate ids in ids_[0, count), best first when top-k or top-p needs order.
size_t Sampler::keep_top_k(const float* logits) {
  for (size_t i = 0; i < vocab_; ++i) ids_[i] = static_cast<int32_t>(i);
  const auto better = [logits](int32_t a, int32_t b) {
    const float la = ordered(logits[a]), lb = ordered(logits[b]);
    return la > lb || (la == lb && a < b);
  };
  size_t count = vocab_;
  if (options_.top_k > 0 && static_cast<size_t>(options_.top_k) < vocab_) {
    count = static_cast<size_t>(options_.top_k);
    std::nth_element(ids_, ids_ + count - 1, ids_ + vocab_, better);
  }
  if (options_.top_p < 1.0f || count < vocab_) std::sort(ids_, ids_ + count, better);
  for (size_t i = 0; i < count; ++i) probs_[i] = ordered(logits[ids_[i]]) / options_.temperature;
  return count;
}

// Softmax over probs_[0, count) in place; then the shortest prefix reaching top_p.
size_t Sampler::softmax_and_top_p(size_t count) {
  float largest = -INFINITY;
  for (size_t i = 0; i < count; ++i) largest = std::max(largest, probs_[i]);
  double total = 0.0;
  for (size_t i = 0; i < count; ++i) {
    probs_[i] = std::isfinite(largest) ? std::exp(probs_[i] - largest) : 1.0f;
    total += probs_[i];
  }
  double kept = 0.0;
  size_t keep = count;
  for (size_t i = 0; i < count; ++i) {
    probs_[i] = static_cast<float>(probs_[i] / total);
    kept += probs_[i];
    if (options_.top_p < 1.0f && kept >= options_.top_p) {
      keep = i + 1;
      break;
    }
  }
  return keep;
}

int32_t Sampler::sample(const float* logits) {
  if (options_.temperature == 0.0f) {
    size_t best = 0;
    for (size_t i = 1; i < vocab_; ++i) {
      if (ordered(logits[i]) > ordered(logits[best])) best = i;
    }
    return static_cast<int32_t>(best);
  }
  const size_t count = softmax_and_top_p(keep_top_k(logits));
  double mass = 0.0;
  for (size_t i = 0; i < count; ++i) mass += probs_[i];
  const double target = static_cast<double>(random_.uniform()) * mass;
  double running = 0.0;
  for (size_t i = 0; i < count; ++i) {
    running += probs_[i];
    if (target < running) return ids_[i];
  }
  return ids_[count - 1];
}

namespace {

// The logits that choose the next token: the model's [1, vocab], or the last row of
// [1, seq, vocab] from a decoder converted with all-position logits.
const float* next_token_logits(const TensorView& logits) {
  const float* data = static_cast<const float*>(logits.data);
  if (logits.shape.rank != 3) return data;
  return data + (logits.shape.dims[1] - 1) * logits.shape.dims[2];
}

}  // namespace

namespace {

bool is_end_token(const GenerateOptions& options, int32_t token) {
  for (size_t i = 0; options.end_tokens != nullptr && i < options.end_token_count; ++i) {
    if (options.end_tokens[i] == token) return true;
  }
  return false;
}

}  // namespace

Status generate(Session& session, const int32_t* prompt, size_t prompt_length, Sampler& sampler,
                const GenerateOptions& options, TokenCallback on_token, void* user) {
  const int ids_input = session.find_input("input_ids");
  const int logits_output = session.find_output("logits");
  if (ids_input < 0 || logits_output < 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "generation needs a decoder with input 'input_ids' and output 'logits'");
  }
  if (prompt_length == 0) return Status::error(StatusCode::kInvalidArgument, "the prompt is empty");
  // The prompt and every new token but the last are fed to the cache: prompt + new - 1
  // positions. Compared without forming the sum, which wraps for max_new_tokens near
  // SIZE_MAX (and size_t is 32 bits on armhf).
  const uint64_t capacity = session.cache_capacity() > 0 ? static_cast<uint64_t>(session.cache_capacity()) : 0;
  const uint64_t prompt_positions = prompt_length;
  if (prompt_positions > capacity || options.max_new_tokens > capacity - prompt_positions + 1) {
    return Status::error(StatusCode::kOutOfRange,
                         "prompt of %zu tokens plus %zu new ones exceed the planned context of %lld",
                         prompt_length, options.max_new_tokens,
                         static_cast<long long>(session.cache_capacity()));
  }
  session.reset_state();
  const int32_t* feed = prompt;
  size_t feed_length = prompt_length;
  int32_t token = 0;
  for (size_t produced = 0; produced < options.max_new_tokens; ++produced) {
    Shape shape;
    shape.rank = 2;
    shape.dims[0] = 1;
    shape.dims[1] = static_cast<int64_t>(feed_length);
    FOCAL_RETURN_IF_ERROR(session.set_input(ids_input, shape, feed, feed_length * sizeof(int32_t)));
    FOCAL_RETURN_IF_ERROR(session.run());
    token = sampler.sample(next_token_logits(session.output(logits_output)));
    if (on_token != nullptr && !on_token(token, user)) break;
    if (token == options.end_token || is_end_token(options, token)) break;
    feed = &token;
    feed_length = 1;
  }
  return Status();
}

}  // namespace focal
