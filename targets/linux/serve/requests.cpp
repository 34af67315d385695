#include "serve/requests.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "cli/command_line.h"
#include "json/json_file.h"

namespace focal {
namespace serve {
namespace {

using Json = nlohmann::json;

// The body as a JSON object, or the reason it is not one.
ApiError parse_object(const std::string& body, Json* out) {
  Result<Json> json = convert::parse_json(body.data(), body.size(), "the request body");
  if (!json.ok()) return invalid_request("malformed_json", "", json.status().message());
  if (!json->is_object()) return invalid_request("malformed_json", "", "the request body is not a JSON object");
  *out = std::move(json.value());
  return ApiError();
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

ApiError wrong_type(const char* field, const char* wanted) {
  return invalid_request("invalid_type", field, std::string("'") + field + "' must be " + wanted);
}

ApiError out_of_range(const char* field, const std::string& range) {
  return invalid_request("out_of_range", field, std::string("'") + field + "' must be " + range);
}

// A required string field.
ApiError get_string(const Json& j, const char* field, bool required, std::string* out) {
  const auto it = j.find(field);
  if (it == j.end() || it->is_null()) {
    return required ? invalid_request("missing_field", field, std::string("'") + field + "' is required") : ApiError();
  }
  if (!it->is_string()) return wrong_type(field, "a string");
  *out = it->get_ref<const std::string&>();
  return ApiError();
}

// An optional integer field in [min, max].
template <class Int>
ApiError get_integer(const Json& j, const char* field, int64_t min, uint64_t max, Int* out, bool* given = nullptr) {
  const auto it = j.find(field);
  if (it == j.end() || it->is_null()) return ApiError();
  const std::string range = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (it->is_number_unsigned()) {
    const uint64_t v = it->get<uint64_t>();
    if (v > max || (min > 0 && v < static_cast<uint64_t>(min))) return out_of_range(field, range);
    *out = static_cast<Int>(v);
  } else if (it->is_number_integer()) {
    const int64_t v = it->get<int64_t>();
    if (v < min || (v >= 0 && static_cast<uint64_t>(v) > max)) return out_of_range(field, range);
    *out = static_cast<Int>(v);
  } else {
    return wrong_type(field, range.c_str());
  }
  if (given != nullptr) *given = true;
  return ApiError();
}

// An optional number field in [min, max] (or (min, max] when min_exclusive).
ApiError get_real(const Json& j, const char* field, double min, double max, bool min_exclusive, float* out) {
  const auto it = j.find(field);
  if (it == j.end() || it->is_null()) return ApiError();
  const std::string range = std::string("a number in ") + (min_exclusive ? "(" : "[") + number_text(min) + ", " +
                            number_text(max) + "]";
  if (!it->is_number()) return wrong_type(field, range.c_str());
  const double v = it->get<double>();
  if (!std::isfinite(v) || v > max || v < min || (min_exclusive && v == min)) return out_of_range(field, range);
  *out = static_cast<float>(v);
  return ApiError();
}

ApiError get_bool(const Json& j, const char* field, bool* out) {
  const auto it = j.find(field);
  if (it == j.end() || it->is_null()) return ApiError();
  if (!it->is_boolean()) return wrong_type(field, "true or false");
  *out = it->get<bool>();
  return ApiError();
}

#define SERVE_RETURN_IF_ERROR(expr)          \
  do {                                       \
    ApiError error_ = (expr);                \
    if (!error_.ok()) return error_;         \
  } while (false)

// "stop": a string or up to kMaxStopStrings strings.
ApiError get_stop(const Json& j, std::vector<std::string>* stop) {
  const auto it = j.find("stop");
  if (it == j.end() || it->is_null()) return ApiError();
  const std::string wanted = "a string or an array of at most " + std::to_string(kMaxStopStrings) + " strings";
  std::vector<const Json*> items;
  if (it->is_string()) items.push_back(&*it);
  else if (it->is_array() && it->size() <= kMaxStopStrings) for (const Json& s : *it) items.push_back(&s);
  else return it->is_array() ? out_of_range("stop", wanted) : wrong_type("stop", wanted.c_str());
  for (const Json* s : items) {
    if (!s->is_string()) return wrong_type("stop", wanted.c_str());
    const std::string& text = s->get_ref<const std::string&>();
    if (text.empty() || text.size() > kMaxStopBytes) {
      return out_of_range("stop", "strings of 1 to " + std::to_string(kMaxStopBytes) + " bytes");
    }
    stop->push_back(text);
  }
  return ApiError();
}

// What completions and chat share: model, max_tokens, sampling, stop, stream, n.
ApiError parse_generation_fields(const Json& j, GenerationRequest* out) {
  SERVE_RETURN_IF_ERROR(get_string(j, "model", true, &out->model));
  SERVE_RETURN_IF_ERROR(get_integer(j, "max_tokens", 1, cli::kMaxTokens, &out->max_tokens));
  SERVE_RETURN_IF_ERROR(get_integer(j, "max_completion_tokens", 1, cli::kMaxTokens, &out->max_tokens));
  SamplingOptions& s = out->sampling.options;
  s.temperature = 1.0f;  // OpenAI's default
  SERVE_RETURN_IF_ERROR(get_real(j, "temperature", 0.0, 2.0, false, &s.temperature));
  SERVE_RETURN_IF_ERROR(get_integer(j, "top_k", 0, INT32_MAX, &s.top_k));
  SERVE_RETURN_IF_ERROR(get_real(j, "top_p", 0.0, 1.0, true, &s.top_p));
  SERVE_RETURN_IF_ERROR(get_integer(j, "seed", 0, std::numeric_limits<uint64_t>::max(), &s.seed, &out->sampling.seed_given));
  SERVE_RETURN_IF_ERROR(get_stop(j, &out->stop));
  SERVE_RETURN_IF_ERROR(get_bool(j, "stream", &out->stream));
  size_t n = 1;
  SERVE_RETURN_IF_ERROR(get_integer(j, "n", 1, 1, &n));
  return ApiError();
}

}  // namespace

ApiError parse_completion(const std::string& body, GenerationRequest* out) {
  Json j;
  SERVE_RETURN_IF_ERROR(parse_object(body, &j));
  SERVE_RETURN_IF_ERROR(parse_generation_fields(j, out));
  const auto prompt = j.find("prompt");
  const char* wanted = "a string or an array of token ids";
  if (prompt == j.end() || prompt->is_null()) return invalid_request("missing_field", "prompt", "'prompt' is required");
  if (prompt->is_string()) {
    out->prompt = prompt->get_ref<const std::string&>();
    if (out->prompt.empty()) return out_of_range("prompt", "a non-empty string");
    return ApiError();
  }
  if (!prompt->is_array() || prompt->empty()) return wrong_type("prompt", wanted);
  for (const Json& id : *prompt) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
      return wrong_type("prompt", wanted);
    }
    out->prompt_ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  return ApiError();
}

ApiError parse_chat(const std::string& body, GenerationRequest* out) {
  Json j;
  SERVE_RETURN_IF_ERROR(parse_object(body, &j));
  SERVE_RETURN_IF_ERROR(parse_generation_fields(j, out));
  const auto messages = j.find("messages");
  const std::string wanted = "an array of 1 to " + std::to_string(kMaxChatMessages) +
                             " {\"role\", \"content\"} objects with string values";
  if (messages == j.end()) return invalid_request("missing_field", "messages", "'messages' is required");
  if (!messages->is_array() || messages->empty() || messages->size() > kMaxChatMessages) {
    return wrong_type("messages", wanted.c_str());
  }
  for (const Json& m : *messages) {
    if (!m.is_object()) return wrong_type("messages", wanted.c_str());
    const auto role = m.find("role");
    const auto content = m.find("content");
    if (role == m.end() || !role->is_string() || content == m.end() || !content->is_string()) {
      return wrong_type("messages", wanted.c_str());
    }
    const std::string& r = role->get_ref<const std::string&>();
    if (r != "system" && r != "user" && r != "assistant") {
      return invalid_request("invalid_role", "messages", "a message's role is 'system', 'user' or 'assistant'");
    }
    out->messages.push_back({r, content->get_ref<const std::string&>()});
  }
  return ApiError();
}

ApiError parse_embedding(const std::string& body, EmbeddingRequest* out) {
  Json j;
  SERVE_RETURN_IF_ERROR(parse_object(body, &j));
  SERVE_RETURN_IF_ERROR(get_string(j, "model", true, &out->model));
  const auto input = j.find("input");
  const std::string wanted = "a string or an array of 1 to " + std::to_string(kMaxEmbeddingInputs) + " strings";
  if (input == j.end() || input->is_null()) return invalid_request("missing_field", "input", "'input' is required");
  if (input->is_string()) {
    out->inputs.push_back(input->get_ref<const std::string&>());
  } else if (input->is_array() && !input->empty() && input->size() <= kMaxEmbeddingInputs) {
    for (const Json& text : *input) {
      if (!text.is_string()) return wrong_type("input", wanted.c_str());
      out->inputs.push_back(text.get_ref<const std::string&>());
    }
  } else {
    return input->is_array() ? out_of_range("input", wanted) : wrong_type("input", wanted.c_str());
  }
  for (const std::string& text : out->inputs) {
    if (text.empty()) return out_of_range("input", "non-empty strings");
  }
  std::string format;
  SERVE_RETURN_IF_ERROR(get_string(j, "encoding_format", false, &format));
  if (!format.empty() && format != "float") {
    return invalid_request("unsupported", "encoding_format", "'encoding_format' must be \"float\"");
  }
  return ApiError();
}

ApiError parse_translation(const std::string& body, TranslationRequest* out) {
  Json j;
  SERVE_RETURN_IF_ERROR(parse_object(body, &j));
  SERVE_RETURN_IF_ERROR(get_string(j, "model", true, &out->model));
  SERVE_RETURN_IF_ERROR(get_string(j, "input", true, &out->input));
  if (out->input.empty()) return out_of_range("input", "a non-empty string");
  SERVE_RETURN_IF_ERROR(get_integer(j, "max_tokens", 1, cli::kMaxTokens, &out->max_tokens));
  SERVE_RETURN_IF_ERROR(get_integer(j, "beam_width", 1, kMaxBeam, &out->beam_width));
  SERVE_RETURN_IF_ERROR(get_bool(j, "attention", &out->attention));
  return ApiError();
}

}  // namespace serve
}  // namespace focal
