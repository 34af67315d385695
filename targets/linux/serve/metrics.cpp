#include "serve/metrics.h"

#include <cstdio>

#include "serve/scheduler.h"
#include "serve/served_model.h"

namespace focal {
namespace serve {

void Metrics::count_status(int status) {
  requests.fetch_add(1, std::memory_order_relaxed);
  if (status >= 500) status_5xx.fetch_add(1, std::memory_order_relaxed);
  else if (status >= 400) status_4xx.fetch_add(1, std::memory_order_relaxed);
  else status_2xx.fetch_add(1, std::memory_order_relaxed);
  if (status == 429 || status == 503) refused_busy.fetch_add(1, std::memory_order_relaxed);
}

namespace {

void line(std::string* out, const char* name, const char* type, const char* help, const std::string& value) {
  *out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " + value + "\n";
}

std::string number(double v) {
  char text[48];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

}  // namespace

std::string render_metrics(const Metrics& m, const Scheduler& scheduler,
                           const std::vector<std::unique_ptr<ServedModel>>& models) {
  std::string out;
  const auto get = [](const std::atomic<uint64_t>& a) { return std::to_string(a.load(std::memory_order_relaxed)); };
  line(&out, "focal_requests_total", "counter", "Requests answered, any route and status.", get(m.requests));
  out += "# HELP focal_responses_total Responses by status class.\n# TYPE focal_responses_total counter\n";
  out += "focal_responses_total{class=\"2xx\"} " + get(m.status_2xx) + "\n";
  out += "focal_responses_total{class=\"4xx\"} " + get(m.status_4xx) + "\n";
  out += "focal_responses_total{class=\"5xx\"} " + get(m.status_5xx) + "\n";
  line(&out, "focal_refused_busy_total", "counter", "Requests refused with 429 or 503 (queue full, timeout, shutdown).",
       get(m.refused_busy));
  line(&out, "focal_connections_refused_total", "counter",
       "Connections answered 503 unread: every connection thread busy and the waiting list full.",
       get(m.connections_refused));
  line(&out, "focal_prompt_tokens_total", "counter", "Tokens read: prompts, conversations, embedding inputs, sources.",
       get(m.prompt_tokens));
  line(&out, "focal_generated_tokens_total", "counter", "Tokens generated: completions, replies, translations.",
       get(m.generated_tokens));
  const double seconds = static_cast<double>(m.generation_ns.load()) * 1e-9;
  line(&out, "focal_generation_seconds_total", "counter", "Time the sessions spent on generating requests.",
       number(seconds));
  line(&out, "focal_tokens_per_second", "gauge",
       "Generated tokens per second of generation time, over the server's life (prompts included in the time).",
       number(seconds > 0 ? static_cast<double>(m.generated_tokens.load()) / seconds : 0.0));
  line(&out, "focal_embeddings_total", "counter", "Embeddings computed.", get(m.embeddings));
  line(&out, "focal_queue_length", "gauge", "Requests waiting for a session now.", std::to_string(scheduler.waiting()));
  line(&out, "focal_sessions_busy", "gauge", "Sessions running a request now.", std::to_string(scheduler.busy()));
  size_t sessions = 0, arena = 0;
  for (const auto& model : models) {
    sessions += model->slots().size();
    arena += model->arena_bytes();
  }
  line(&out, "focal_sessions", "gauge", "Sessions created at start (all models).", std::to_string(sessions));
  line(&out, "focal_arena_bytes", "gauge", "Bytes of the sessions' arenas, allocated at start.", std::to_string(arena));
  return out;
}

}  // namespace serve
}  // namespace focal
