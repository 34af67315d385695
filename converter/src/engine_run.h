// A converted model run by the engine inside the converter (the static int8 self-test,
// `--fit`'s error measurement): the file copied into a 64-byte aligned block
// (Model::from_bytes needs it), an arena of the size the plan asks for, one session.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "focal/model.h"
#include "focal/session.h"
#include "focal/status.h"
#include "reference/evaluator.h"

namespace focal {
namespace convert {

struct EngineRun {
  std::unique_ptr<void, void (*)(void*)> file{nullptr, std::free};
  std::unique_ptr<void, void (*)(void*)> arena{nullptr, std::free};
  size_t arena_bytes = 0;  // Session::required_arena_bytes with default SessionOptions
  std::optional<Model> model;
  std::optional<Session> session;
};

// Loads `bytes` (a whole .focal file) into `run` and creates its session.
Status start_engine(const std::vector<uint8_t>& bytes, EngineRun& run);

// Sets `inputs` (tensor indices of `source`, a model with the same input names) on
// `session` by name, as the engine takes them (i32 ids, f32 otherwise). `each`, when
// given, sees every input's name, value and bytes (the static self-test stores them).
using InputBytes = std::function<void(const char* name, const reference::Value& value, std::vector<uint8_t> bytes)>;
Status set_inputs_by_name(Session& session, const Model& source, const std::vector<reference::Value>& inputs,
                          const InputBytes& each = nullptr);

}  // namespace convert
}  // namespace focal
