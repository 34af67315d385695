// focal serve's counters, and /metrics: Prometheus' text format (one "name value" per
// line, # HELP and # TYPE before each) so any scraper or a plain curl reads it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace focal {
namespace serve {

class Scheduler;
class ServedModel;

struct Metrics {
  std::atomic<uint64_t> requests{0};          // every request answered (any route, any status)
  std::atomic<uint64_t> status_2xx{0}, status_4xx{0}, status_5xx{0};
  std::atomic<uint64_t> refused_busy{0};      // 429 (queue full) and 503 (queue timeout, shutdown)
  std::atomic<uint64_t> prompt_tokens{0};     // prompts, chat conversations, embedding inputs, sources
  std::atomic<uint64_t> generated_tokens{0};  // completions, replies, translations
  std::atomic<uint64_t> generation_ns{0};     // time in the sessions generating them
  std::atomic<uint64_t> embeddings{0};
  std::atomic<uint64_t> connections_refused{0};  // 503 before reading: every connection thread busy, the list full

  void count_status(int status);
};

std::string render_metrics(const Metrics& metrics, const Scheduler& scheduler,
                           const std::vector<std::unique_ptr<ServedModel>>& models);

}  // namespace serve
}  // namespace focal
