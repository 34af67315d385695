#include "serve/routes.h"

#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <random>
#include <nlohmann/json.hpp>

#include "serve/connections.h"
#include "serve/requests.h"

namespace focal {
namespace serve {

using Json = nlohmann::json;

bool same_key(const std::string& given, const std::string& key) {
  volatile unsigned char diff = given.size() == key.size() ? 0 : 1;
  for (size_t i = 0; i < key.size(); ++i) {
    const unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff = static_cast<unsigned char>(diff | (g ^ static_cast<unsigned char>(key[i])));
  }
  return diff == 0;
}

std::string error_body(const ApiError& e) {
  Json error = {{"message", e.message}, {"type", e.type}, {"code", e.code}};
  error["param"] = e.param.empty() ? Json(nullptr) : Json(e.param);
  return Json{{"error", error}}.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

void reply(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(dump(body) + "\n", "application/json");
}

void reply_error(httplib::Response& res, const ApiError& error) {
  res.status = error.status;
  res.set_content(error_body(error), "application/json");
  if (error.status == 401) res.set_header("WWW-Authenticate", "Bearer");
  if (error.status == 429 || error.status == 503) res.set_header("Retry-After", "1");
}

int64_t unix_time() { return static_cast<int64_t>(std::time(nullptr)); }

uint64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count());
}

bool loopback_only_path(const std::string& path) { return path == "/health"; }

// A fresh seed when sampling without one, so requests without a seed differ as OpenAI's do.
void choose_seed(Sampling* sampling) {
  if (sampling->seed_given || sampling->options.temperature == 0.0f) return;
  std::random_device device;
  sampling->options.seed = (static_cast<uint64_t>(device()) << 32) ^ device();
}

// One streamed generation: the lease, the request, and what the provider writes.
struct Stream {
  Lease lease;
  ServedModel* model = nullptr;
  GenerationRequest request;
  std::vector<int32_t> prompt;
  bool chat = false;
  std::string id;
  int64_t created = 0;
  httplib::DataSink* sink = nullptr;
  bool wrote_failed = false;

  Json chunk(const std::string& text, const char* finish) const {
    Json choice = {{"index", 0}};
    if (chat) choice["delta"] = text.empty() && finish != nullptr ? Json::object() : Json{{"content", text}};
    else choice["text"] = text, choice["logprobs"] = nullptr;
    choice["finish_reason"] = finish == nullptr ? Json(nullptr) : Json(finish);
    return {{"id", id}, {"object", chat ? "chat.completion.chunk" : "text_completion"}, {"created", created},
            {"model", model->name()}, {"choices", Json::array({choice})}};
  }
  bool send(const Json& event) {
    const std::string text = "data: " + dump(event) + "\n\n";
    if (wrote_failed || !sink->is_writable() || !sink->write(text.data(), text.size())) wrote_failed = true;
    return !wrote_failed;
  }
  static bool on_text(std::string_view text, void* user) {
    Stream* s = static_cast<Stream*>(user);
    return s->send(s->chunk(std::string(text), nullptr));
  }
};

}  // namespace

struct RouteHandlers {
  static void health(Routes& r, const httplib::Request&, httplib::Response& res) {
    if (r.scheduler_->shutting_down()) return reply(res, 503, {{"status", "shutting down"}});
    reply(res, 200, {{"status", "ok"}, {"models", r.models_->size()}});
  }

  static void models(Routes& r, const httplib::Request&, httplib::Response& res) {
    Json data = Json::array();
    for (const auto& m : *r.models_) {
      data.push_back({{"id", m->name()}, {"object", "model"}, {"created", 0}, {"owned_by", "focal"},
                      {"kind", kind_name(m->kind())}, {"sessions", m->slots().size()}, {"context", m->context()},
                      {"chat", m->has_chat_format()}, {"arena_bytes", m->arena_bytes()}});
    }
    reply(res, 200, {{"object", "list"}, {"data", data}});
  }

  static void metrics(Routes& r, const httplib::Request&, httplib::Response& res) {
    res.set_content(render_metrics(*r.metrics_, *r.scheduler_, *r.models_), "text/plain; version=0.0.4");
  }

  // The model a request names, of the kind the route serves.
  static ApiError model_for(Routes& r, const std::string& name, ModelKind kind, const char* route, ServedModel** out) {
    *out = r.find(name);
    if (*out == nullptr) {
      std::string names;
      for (const auto& m : *r.models_) names += (names.empty() ? "" : ", ") + m->name();
      return api_error(404, "invalid_request_error", "model_not_found", "model",
                       "model '" + name + "' is not served here (served: " + names + ")");
    }
    if ((*out)->kind() != kind) {
      return invalid_request("wrong_model_kind", "model",
                             std::string(route) + " takes a " + kind_name(kind) + " model; '" + name + "' is a " +
                                 kind_name((*out)->kind()));
    }
    return ApiError();
  }

  static void generation(Routes& r, const httplib::Request& req, httplib::Response& res, bool chat) {
    auto request = std::make_shared<Stream>();
    request->chat = chat;
    GenerationRequest& g = request->request;
    ApiError error = chat ? parse_chat(req.body, &g) : parse_completion(req.body, &g);
    if (error.ok()) error = model_for(r, g.model, ModelKind::kDecoder, chat ? "/v1/chat/completions" : "/v1/completions",
                                      &request->model);
    if (error.ok()) error = request->model->prompt_ids(g, chat, &request->prompt);
    if (error.ok()) error = r.scheduler_->acquire(*request->model, &request->lease);
    if (!error.ok()) return reply_error(res, error);
    choose_seed(&g.sampling);
    request->id = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(r.next_id_.fetch_add(1));
    request->created = unix_time();
    r.metrics_->prompt_tokens += request->prompt.size();
    if (g.stream) {
      Routes* routes = &r;
      res.set_header("Cache-Control", "no-cache");
      res.set_chunked_content_provider("text/event-stream", [routes, request](size_t, httplib::DataSink& sink) {
        Stream& s = *request;
        s.sink = &sink;
        if (s.chat) {
          Json first = s.chunk("", nullptr);
          first["choices"][0]["delta"] = {{"role", "assistant"}, {"content", ""}};
          s.send(first);
        }
        Generated out;
        const auto start = std::chrono::steady_clock::now();
        const ApiError e = s.model->generate(*s.lease.slot(), s.request, s.prompt, Stream::on_text, &s,
                                             &routes->cancel_, &out);
        routes->metrics_->generation_ns += elapsed_ns(start);
        routes->metrics_->generated_tokens += out.completion_tokens;
        s.lease.release();
        if (!e.ok()) {
          s.send(Json::parse(error_body(e)));
        } else {
          Json last = s.chunk("", out.finish_reason);
          last["usage"] = {{"prompt_tokens", out.prompt_tokens}, {"completion_tokens", out.completion_tokens},
                           {"total_tokens", out.prompt_tokens + out.completion_tokens}};
          s.send(last);
        }
        const std::string done = "data: [DONE]\n\n";
        if (!s.wrote_failed && sink.is_writable()) sink.write(done.data(), done.size());
        sink.done();
        return true;
      });
      return;
    }
    Generated out;
    const auto start = std::chrono::steady_clock::now();
    error = request->model->generate(*request->lease.slot(), g, request->prompt, nullptr, nullptr, &r.cancel_, &out);
    r.metrics_->generation_ns += elapsed_ns(start);
    r.metrics_->generated_tokens += out.completion_tokens;
    request->lease.release();
    if (!error.ok()) return reply_error(res, error);
    Json choice = {{"index", 0}, {"finish_reason", out.finish_reason}};
    if (chat) choice["message"] = {{"role", "assistant"}, {"content", out.text}};
    else choice["text"] = out.text, choice["logprobs"] = nullptr;
    reply(res, 200,
          {{"id", request->id}, {"object", chat ? "chat.completion" : "text_completion"}, {"created", request->created},
           {"model", request->model->name()}, {"choices", Json::array({choice})},
           {"usage", {{"prompt_tokens", out.prompt_tokens}, {"completion_tokens", out.completion_tokens},
                      {"total_tokens", out.prompt_tokens + out.completion_tokens}}}});
  }

  static void embeddings(Routes& r, const httplib::Request& req, httplib::Response& res) {
    EmbeddingRequest e;
    ServedModel* model = nullptr;
    ApiError error = parse_embedding(req.body, &e);
    if (error.ok()) error = model_for(r, e.model, ModelKind::kEncoder, "/v1/embeddings", &model);
    std::vector<std::vector<int32_t>> ids(e.inputs.size());
    size_t tokens = 0;
    for (size_t i = 0; error.ok() && i < e.inputs.size(); ++i) {
      error = model->embedding_ids(e.inputs[i], &ids[i]);
      tokens += ids[i].size();
    }
    Lease lease;
    if (error.ok()) error = r.scheduler_->acquire(*model, &lease);
    if (!error.ok()) return reply_error(res, error);
    Json data = Json::array();
    std::vector<float> embedding;
    for (size_t i = 0; i < ids.size(); ++i) {
      error = model->embed(*lease.slot(), ids[i], &embedding);
      if (!error.ok()) return reply_error(res, error);
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", embedding}});
    }
    lease.release();
    r.metrics_->prompt_tokens += tokens;
    r.metrics_->embeddings += ids.size();
    reply(res, 200, {{"object", "list"}, {"data", data}, {"model", model->name()},
                     {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}});
  }

  static void translations(Routes& r, const httplib::Request& req, httplib::Response& res) {
    TranslationRequest t;
    ServedModel* model = nullptr;
    std::vector<int32_t> source;
    Lease lease;
    ApiError error = parse_translation(req.body, &t);
    if (error.ok()) error = model_for(r, t.model, ModelKind::kSeq2seq, "/v1/translations", &model);
    if (error.ok()) error = model->source_ids(t, &source);
    if (error.ok()) error = r.scheduler_->acquire(*model, &lease);
    if (!error.ok()) return reply_error(res, error);
    Translated out;
    const auto start = std::chrono::steady_clock::now();
    error = model->translate(*lease.slot(), t, source, &out);
    r.metrics_->generation_ns += elapsed_ns(start);
    lease.release();
    if (!error.ok()) return reply_error(res, error);
    r.metrics_->prompt_tokens += out.source_tokens;
    r.metrics_->generated_tokens += out.target_tokens;
    Json body = {{"object", "translation"}, {"model", model->name()}, {"text", out.text},
                 {"usage", {{"prompt_tokens", out.source_tokens}, {"completion_tokens", out.target_tokens},
                            {"total_tokens", out.source_tokens + out.target_tokens}}}};
    if (t.attention) {
      Json rows = Json::array();
      for (size_t i = 0; i < out.target_tokens; ++i) {
        rows.push_back(std::vector<float>(out.attention.begin() + static_cast<long>(i * out.source_tokens),
                                          out.attention.begin() + static_cast<long>((i + 1) * out.source_tokens)));
      }
      body["attention"] = rows;
    }
    reply(res, 200, body);
  }

  // Before the body is read: the API key, the declared size and encoding.
  static httplib::Server::HandlerResponse admit(Routes& r, const httplib::Request& req, httplib::Response& res) {
    const auto refuse = [&](const ApiError& e) {
      reply_error(res, e);
      res.set_header("Connection", "close");  // the unread body must not be taken for the next request
      HttpServer::close_after_answer();
      return httplib::Server::HandlerResponse::Handled;
    };
    if (!r.limits_.api_key.empty() && !loopback_only_path(req.path)) {
      const std::string auth = req.get_header_value("Authorization");
      const std::string given = auth.compare(0, 7, "Bearer ") == 0 ? auth.substr(7) : std::string();
      if (!same_key(given, r.limits_.api_key)) {
        return refuse(api_error(401, "authentication_error", "invalid_api_key", "",
                                "this server asks for an API key: send 'Authorization: Bearer KEY'"));
      }
    }
    const std::string encoding = req.get_header_value("Content-Encoding");
    if (!encoding.empty() && encoding != "identity") {
      return refuse(api_error(415, "invalid_request_error", "unsupported_content_encoding", "",
                              "request bodies are read as sent: Content-Encoding '" + encoding.substr(0, 64) +
                                  "' is not taken (a compressed body's size is unknown until expanded)"));
    }
    if (req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos) {
      return refuse(api_error(411, "invalid_request_error", "length_required", "",
                              "send the body with a Content-Length (chunked request bodies are not taken)"));
    }
    const std::string length = req.get_header_value("Content-Length");
    if (!length.empty()) {
      char* end = nullptr;
      const unsigned long long bytes = std::strtoull(length.c_str(), &end, 10);
      if (end == length.c_str() || *end != '\0' || bytes > r.limits_.max_body_bytes) {
        return refuse(api_error(413, "invalid_request_error", "body_too_large", "",
                                "the request body of " + length.substr(0, 32) + " bytes is more than the limit of " +
                                    std::to_string(r.limits_.max_body_bytes) + " bytes (--max-body)"));
      }
    }
    return httplib::Server::HandlerResponse::Unhandled;
  }
};

ServedModel* Routes::find(const std::string& name) const {
  for (const auto& m : *models_) {
    if (m->name() == name) return m.get();
  }
  return nullptr;
}

void Routes::install(httplib::Server& server) {
  Routes* r = this;
  server.set_payload_max_length(limits_.max_body_bytes);
  server.set_pre_routing_handler(
      [r](const httplib::Request& req, httplib::Response& res) { return RouteHandlers::admit(*r, req, res); });
  server.Get("/health", [r](const httplib::Request& q, httplib::Response& s) { RouteHandlers::health(*r, q, s); });
  server.Get("/metrics", [r](const httplib::Request& q, httplib::Response& s) { RouteHandlers::metrics(*r, q, s); });
  server.Get("/v1/models", [r](const httplib::Request& q, httplib::Response& s) { RouteHandlers::models(*r, q, s); });
  server.Post("/v1/completions",
              [r](const httplib::Request& q, httplib::Response& s) { RouteHandlers::generation(*r, q, s, false); });
  server.Post("/v1/chat/completions",
              [r](const httplib::Request& q, httplib::Response& s) { RouteHandlers::generation(*r, q, s, true); });
  server.Post("/v1/embeddings",
              [r](const httplib::Request& q, httplib::Response& s) { RouteHandlers::embeddings(*r, q, s); });
  server.Post("/v1/translations",
              [r](const httplib::Request& q, httplib::Response& s) { RouteHandlers::translations(*r, q, s); });
  // What httplib refuses by itself (no such route, a bad request line, an oversized
  // header) gets a JSON body too.
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* code = res.status == 404 ? "not_found" : res.status == 413 ? "body_too_large" : "bad_request";
    std::string message = res.status == 404 ? "no route " + req.method.substr(0, 16) + " " + req.path.substr(0, 256)
                                            : std::string("the request was refused: HTTP ") + std::to_string(res.status);
    reply_error(res, api_error(res.status, "invalid_request_error", code, "", message));
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    reply_error(res, api_error(500, "server_error", "internal", "", "the request failed inside the server"));
  });
  Metrics* metrics = metrics_;
  // After an error the connection closes: what the client sent next (the rest of a refused
  // head or body) is not read as a request.
  server.set_logger([metrics](const httplib::Request&, const httplib::Response& res) {
    metrics->count_status(res.status);
    if (res.status >= 400) HttpServer::close_after_answer();
  });
}

}  // namespace serve
}  // namespace focal
