#include "cli/run_habits.h"

#include <cstdio>
#include <random>

namespace focal {
namespace cli {

void choose_seed(const char* command, bool seed_given, SamplingOptions* sampling) {
  if (seed_given || sampling->temperature <= 0.0f) return;
  std::random_device source;  // the kernel's getrandom(); seeds only, so one draw per run
  const uint64_t seed = ((uint64_t(source()) << 32) | source()) & uint64_t(INT64_MAX);  // what -s accepts
  sampling->seed = seed;
  std::fprintf(stderr, "%s: seed %llu (-s %llu repeats this run)\n", command, (unsigned long long)seed,
               (unsigned long long)seed);
}

void GenerationTimer::start() {
  start_ = Clock::now();
  first_seen_ = false;
}

void GenerationTimer::first_token() {
  if (first_seen_) return;
  first_token_ = Clock::now();
  first_seen_ = true;
}

void GenerationTimer::report(const char* command, size_t prompt_tokens, size_t generated_tokens) const {
  const auto end = Clock::now();
  const auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  const auto rate = [](size_t tokens, double millis) { return millis > 0 ? 1000.0 * double(tokens) / millis : 0.0; };
  if (!first_seen_ || generated_tokens == 0) {
    std::fprintf(stderr, "%s: prompt %zu tokens, no tokens generated, %.2f ms\n", command, prompt_tokens,
                 ms(start_, end));
    return;
  }
  // The first token comes out of the prompt's run; the others each take one decode step.
  const double prompt_ms = ms(start_, first_token_);
  const double decode_ms = ms(first_token_, end);
  std::fprintf(stderr, "%s: prompt %zu tokens in %.2f ms (%.1f tokens/s), generation %zu tokens in %.2f ms (%.1f tokens/s)\n",
               command, prompt_tokens, prompt_ms, rate(prompt_tokens, prompt_ms), generated_tokens - 1, decode_ms,
               rate(generated_tokens - 1, decode_ms));
}

void GenerationTimer::report_translation(const char* command, size_t source_tokens, size_t generated_tokens) const {
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  std::fprintf(stderr, "%s: source %zu tokens, %zu tokens generated in %.2f ms (%.1f tokens/s)\n", command,
               source_tokens, generated_tokens, ms, ms > 0 ? 1000.0 * double(generated_tokens) / ms : 0.0);
}

}  // namespace cli
}  // namespace focal
