// focal serve MODEL... [--host 127.0.0.1] [--port 8080]: the models over HTTP with
// OpenAI's API (routes.h), a fixed set of sessions made at start (served_model.h), a
// bounded queue (scheduler.h). SIGINT and SIGTERM stop it cleanly: new requests are
// refused (503), generations in flight end at their next token ("cancelled") and are
// answered, then the process exits 0.
#include <httplib.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/text_file.h"
#include "cpu_cores.h"
#include "serve/connections.h"
#include "serve/metrics.h"
#include "serve/routes.h"
#include "serve/scheduler.h"
#include "serve/served_model.h"

namespace focal {
namespace cli {
namespace {

constexpr int64_t kMaxSessions = 64;
constexpr int64_t kMaxQueue = 4096;

const char* kUsage =
    "usage: focal serve MODEL.focal... [--host ADDRESS] [--port N] [--sessions N] [--threads N]\n"
    "                   [--queue N] [--queue-timeout S] [--max-body BYTES] [--timeout S]\n"
    "                   [--api-key KEY | --api-key-file FILE]\n"
    "Serves the models over HTTP with OpenAI's API: GET /health, /metrics, /v1/models; POST\n"
    "/v1/completions and /v1/chat/completions (decoders; \"stream\": true sends server-sent\n"
    "events), /v1/embeddings (encoders with a sentence_embedding output), /v1/translations\n"
    "(sequence-to-sequence models; focal's own route). A model is named by its file's name\n"
    "without .focal, or NAME=MODEL.focal. docs/serving.md describes requests and limits.\n"
    "  --host ADDRESS      the address to listen on (default 127.0.0.1: this machine only)\n"
    "  --port N            the TCP port (default 8080; 0: any free port, printed at start)\n"
    "  --sessions N        sessions per model, made at start (default 1): requests at once\n"
    "  --threads N         threads per session (default: the physical cores / all sessions)\n"
    "  --queue N           requests waiting for a session at most, all models (default 16);\n"
    "                      more are refused with 429\n"
    "  --queue-timeout S   a waiting request is refused with 503 after S seconds (default 30)\n"
    "  --max-body BYTES    the largest request body (default 1048576); larger: 413\n"
    "  --timeout S         read and write timeout of a connection, seconds (default 10)\n"
    "  --api-key KEY       ask every request but /health for 'Authorization: Bearer KEY'\n"
    "  --api-key-file FILE the same, the key read from FILE (kept out of the process list)\n";

struct Options {
  std::vector<std::string> models;  // NAME=PATH or PATH
  std::string host = "127.0.0.1";
  int64_t port = 8080;
  int sessions = 1;
  int threads = 0;  // 0: the physical cores shared among the sessions
  size_t queue = 16;
  int64_t queue_timeout = 30;
  size_t max_body = 1 << 20;
  int64_t timeout = 10;
  std::string api_key;
};

Status parse(int argc, char** argv, Options* o) {
  Arguments args(argc, argv);
  while (args.more()) {
    const char* value = nullptr;
    if (args.text("--host", &o->host)) {
    } else if (args.integer("--port", 0, 65535, &o->port)) {
    } else if (args.integer("--sessions", 1, kMaxSessions, &o->sessions)) {
    } else if (args.integer("--threads", 1, kMaxThreads, &o->threads) || args.integer("-t", 1, kMaxThreads, &o->threads)) {
    } else if (args.integer("--queue", 0, kMaxQueue, &o->queue)) {
    } else if (args.integer("--queue-timeout", 1, 3600, &o->queue_timeout)) {
    } else if (args.integer("--max-body", 1024, int64_t(1) << 30, &o->max_body)) {
    } else if (args.integer("--timeout", 1, 3600, &o->timeout)) {
    } else if (args.text("--api-key", &o->api_key)) {
    } else if (args.text("--api-key-file", &value)) {
      if (value != nullptr) args.fail(read_text_file("--api-key-file", value, &o->api_key));
    } else if (args.text("-m", &value)) {
      if (value != nullptr) o->models.push_back(value);
    } else {
      const char* model = nullptr;
      if (!args.positional(&model)) args.refuse_current();
      else o->models.push_back(model);
    }
  }
  if (!args.status().ok()) return args.status();
  if (o->models.empty()) return missing_argument("MODEL.focal");
  while (!o->api_key.empty() && (o->api_key.back() == '\n' || o->api_key.back() == '\r')) o->api_key.pop_back();
  return Status();
}

// "story" from "dir/story.focal"; NAME=PATH names it.
void split_name(const std::string& arg, std::string* name, std::string* path) {
  const size_t eq = arg.find('=');
  if (eq != std::string::npos && eq > 0 && arg.find('/') > eq) {
    *name = arg.substr(0, eq);
    *path = arg.substr(eq + 1);
    return;
  }
  *path = arg;
  const size_t slash = arg.rfind('/');
  *name = slash == std::string::npos ? arg : arg.substr(slash + 1);
  if (name->size() > 6 && name->compare(name->size() - 6, 6, ".focal") == 0) name->resize(name->size() - 6);
}

Status open_models(const Options& o, std::vector<std::unique_ptr<serve::ServedModel>>* models) {
  const int total = o.sessions * static_cast<int>(o.models.size());
  const int threads = o.threads > 0 ? o.threads : std::max(1, physical_core_count() / std::max(1, total));
  for (const std::string& arg : o.models) {
    std::string name, path;
    split_name(arg, &name, &path);
    for (const auto& m : *models) {
      if (m->name() == name) {
        return Status::error(StatusCode::kInvalidArgument, "two models named '%s' (name one NAME=%s)", name.c_str(),
                             path.c_str());
      }
    }
    auto model = serve::ServedModel::open(name, path, o.sessions, threads);
    if (!model.ok()) return model.status();
    models->push_back(std::move(model.value()));
  }
  return Status();
}

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "::1" || host == "localhost" || host.compare(0, 4, "127.") == 0;
}

// The signals the server waits for: SIGINT and SIGTERM stop it, SIGUSR2 (sent by the
// server itself) ends the wait when it stopped for another reason.
void stop_signals(sigset_t* set) {
  sigemptyset(set);
  sigaddset(set, SIGINT);
  sigaddset(set, SIGTERM);
  sigaddset(set, SIGUSR2);
}

// Blocked in every thread, the signals come to this thread alone.
void wait_for_signal(serve::HttpServer* server, serve::Scheduler* scheduler, serve::Routes* routes) {
  sigset_t set;
  stop_signals(&set);
  int received = 0;
  sigwait(&set, &received);
  if (received != SIGUSR2) std::fprintf(stderr, "focal serve: %s, stopping\n", received == SIGINT ? "SIGINT" : "SIGTERM");
  scheduler->shut_down();
  routes->cancel_all();
  server->halt();
}

}  // namespace

int serve_command(int argc, char** argv) {
  Options o;
  if (const int exit_code = parse_command_line("serve", argc, argv, kUsage, parse, &o); exit_code >= 0) return exit_code;
  // Before any thread starts: SIGINT and SIGTERM go to the waiting thread only; a client
  // that leaves is a failed write, not SIGPIPE.
  sigset_t set, previous;
  stop_signals(&set);
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_pipe = {};
  sigaction(SIGPIPE, &ignore, &old_pipe);

  // A request's buffers (its head, up to 64 KiB; its body, up to --max-body) are freed
  // after it; glibc's dynamic mmap threshold would keep such sizes in each connection
  // thread's arena instead, and the RSS would climb to threads x budget. A fixed threshold
  // gives them back to the system when freed.
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);

  std::vector<std::unique_ptr<serve::ServedModel>> models;
  Status status = open_models(o, &models);
  if (!status.ok()) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return report_failure("serve", status);
  }
  serve::Scheduler scheduler(o.queue, std::chrono::seconds(o.queue_timeout));
  serve::Metrics metrics;
  serve::Routes routes(&models, &scheduler, &metrics, {o.max_body, o.api_key});
  serve::HttpServer server;
  size_t sessions = 0;
  for (const auto& m : models) sessions += m->slots().size();
  // A connection thread per session and per queued request, and two for /health and
  // /metrics; four times as many connections may wait for one.
  serve::ConnectionLimits limits;
  limits.threads = sessions + o.queue + 2;
  limits.pending = std::max<size_t>(16, 4 * limits.threads);
  limits.request_timeout = limits.write_timeout = std::chrono::seconds(o.timeout);
  limits.max_request_bytes = o.max_body + serve::kMaxRequestHeadBytes;
  server.set_keep_alive_max_count(limits.keep_alive_requests);  // what httplib's Keep-Alive header says
  server.set_keep_alive_timeout(limits.keep_alive.count());
  routes.install(server);
  server.count_refusals_in(&metrics.connections_refused);
  const int port = server.bind(o.host, static_cast<int>(o.port));
  if (port < 0) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return report_failure("serve", Status::error(StatusCode::kIoError, "cannot listen on %s port %lld",
                                                 printable(o.host).c_str(), static_cast<long long>(o.port)));
  }
  if (!is_loopback(o.host) && o.api_key.empty()) {
    std::fprintf(stderr, "focal serve: warning: listening on %s, reachable from other machines, without --api-key\n",
                 printable(o.host).c_str());
  }
  for (const auto& m : models) {
    std::fprintf(stderr, "focal serve: model '%s' (%s, %zu session%s, context %zu, arena %zu bytes)\n",
                 printable(m->name()).c_str(), serve::kind_name(m->kind()), m->slots().size(),
                 m->slots().size() == 1 ? "" : "s", m->context(), m->arena_bytes());
  }
  const bool v6 = o.host.find(':') != std::string::npos;
  std::fprintf(stderr, "focal serve: listening on http://%s%s%s:%d\n", v6 ? "[" : "", printable(o.host).c_str(),
               v6 ? "]" : "", port);
  std::thread signals(wait_for_signal, &server, &scheduler, &routes);
  server.serve(limits);  // returns after halt(), once the requests in flight are answered
  scheduler.shut_down();
  pthread_kill(signals.native_handle(), SIGUSR2);  // wakes the signal thread when no signal did
  signals.join();
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  sigaction(SIGPIPE, &old_pipe, nullptr);
  std::fprintf(stderr, "focal serve: stopped after %llu requests\n",
               static_cast<unsigned long long>(metrics.requests.load()));
  return 0;
}

}  // namespace cli
}  // namespace focal
