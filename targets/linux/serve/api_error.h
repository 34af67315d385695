// An HTTP refusal as OpenAI's API words it: {"error": {"message", "type", "param",
// "code"}} with the status it goes with. Every refusal of focal serve names the limit or
// the field it is about, so a client's log says what to change.
#pragma once

#include <string>

namespace focal {
namespace serve {

struct ApiError {
  int status = 0;        // 0: no error
  const char* type = "";  // "invalid_request_error", "server_busy", "authentication_error", ...
  const char* code = "";  // the limit or cause: "body_too_large", "prompt_too_long", "queue_full", ...
  std::string param;      // the request's field, when one is at fault
  std::string message;

  bool ok() const { return status == 0; }
};

inline ApiError api_error(int status, const char* type, const char* code, std::string param, std::string message) {
  return ApiError{status, type, code, std::move(param), std::move(message)};
}

inline ApiError invalid_request(const char* code, std::string param, std::string message) {
  return api_error(400, "invalid_request_error", code, std::move(param), std::move(message));
}

// The error as the JSON body of its response.
std::string error_body(const ApiError& error);

}  // namespace serve
}  // namespace focal
