// What llama.cpp's users expect of every generating command: a fresh random seed unless
// -s gives one (printed, so a run can be repeated), and timings after generation.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "focal/generate.h"

namespace focal {
namespace cli {

// When sampling (temperature > 0) without a given seed: draws one from the system's
// random source and prints "COMMAND: seed S (-s S repeats this run)" to stderr. Greedy
// runs ignore the seed, so nothing is drawn or printed for them.
void choose_seed(const char* command, bool seed_given, SamplingOptions* sampling);

// Prompt processing and generation speeds, as llama.cpp prints them after a run:
// start() before the prompt runs, first_token() when the first new token is out (the
// prompt's time ends there), report() at the end, to stderr.
class GenerationTimer {
 public:
  void start();
  void first_token();
  void report(const char* command, size_t prompt_tokens, size_t generated_tokens) const;
  // A sequence-to-sequence run, whose tokens come out together: the whole time.
  void report_translation(const char* command, size_t source_tokens, size_t generated_tokens) const;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_{}, first_token_{};
  bool first_seen_ = false;
};

}  // namespace cli
}  // namespace focal
