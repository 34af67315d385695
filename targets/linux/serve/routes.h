// focal serve's HTTP surface on cpp-httplib: the routes, the checks every request passes
// before its body is read (API key, body size, content encoding), JSON errors for
// everything httplib refuses on its own, and the counters behind /metrics.
//   GET  /health, /metrics, /v1/models
//   POST /v1/completions, /v1/chat/completions (both may stream as server-sent events),
//        /v1/embeddings, /v1/translations
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "serve/metrics.h"
#include "serve/scheduler.h"
#include "serve/served_model.h"

namespace httplib {
class Server;
}

namespace focal {
namespace serve {

struct RouteLimits {
  size_t max_body_bytes = 1 << 20;
  std::string api_key;  // empty: none asked
};

class Routes {
 public:
  Routes(std::vector<std::unique_ptr<ServedModel>>* models, Scheduler* scheduler, Metrics* metrics,
         RouteLimits limits)
      : models_(models), scheduler_(scheduler), metrics_(metrics), limits_(std::move(limits)) {}

  void install(httplib::Server& server);
  // Generations in flight stop at their next token (finish_reason "cancelled").
  void cancel_all() { cancel_.store(true); }

  ServedModel* find(const std::string& name) const;

 private:
  std::vector<std::unique_ptr<ServedModel>>* models_;
  Scheduler* scheduler_;
  Metrics* metrics_;
  RouteLimits limits_;
  std::atomic<bool> cancel_{false};
  std::atomic<uint64_t> next_id_{0};

  friend struct RouteHandlers;
};

// True when `given` equals `key`, in a time that depends on the key's length only.
bool same_key(const std::string& given, const std::string& key);

}  // namespace serve
}  // namespace focal
