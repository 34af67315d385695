// A converted model run by the engine inside the converter (engine_run.h).
#include "engine_run.h"

#include <cstring>

#include "assign_or_return.h"
#include "focal/internal/graph.h"

namespace focal {
namespace convert {
namespace {

// Model::from_bytes and Session::create want 64-byte aligned blocks, and aligned_alloc a
// size that is a multiple of the alignment.
size_t aligned_size(size_t bytes) { return static_cast<size_t>(align_up(bytes, kBufferAlignment)); }

}  // namespace

Status start_engine(const std::vector<uint8_t>& bytes, EngineRun& run) {
  run.file.reset(std::aligned_alloc(kBufferAlignment, aligned_size(bytes.size())));
  if (run.file == nullptr) return Status::error(StatusCode::kResourceExhausted, "no memory for a %zu-byte model", bytes.size());
  std::memcpy(run.file.get(), bytes.data(), bytes.size());
  FOCAL_ASSIGN_OR_RETURN(const Model model, Model::from_bytes(run.file.get(), bytes.size()));
  run.model.emplace(model);
  FOCAL_ASSIGN_OR_RETURN(run.arena_bytes, Session::required_arena_bytes(*run.model, SessionOptions()));
  run.arena.reset(std::aligned_alloc(kBufferAlignment, aligned_size(run.arena_bytes)));
  if (run.arena == nullptr) return Status::error(StatusCode::kResourceExhausted, "no memory for a %zu-byte arena", run.arena_bytes);
  Result<Session> session = Session::create(*run.model, SessionOptions(), run.arena.get(), run.arena_bytes);
  if (!session.ok()) return session.status();
  run.session.emplace(std::move(session).value());
  return Status();
}

Status set_inputs_by_name(Session& session, const Model& source, const std::vector<reference::Value>& inputs,
                          const InputBytes& each) {
  for (const reference::Value& v : inputs) {
    const TensorInfo info = source.tensor(v.tensor);
    std::vector<uint8_t> bytes(v.values.size() * 4);
    for (size_t i = 0; i < v.values.size(); ++i) {
      if (info.dtype == DType::kI32) {
        const int32_t x = static_cast<int32_t>(v.values[i]);
        std::memcpy(bytes.data() + i * 4, &x, 4);
      } else {
        const float x = static_cast<float>(v.values[i]);
        std::memcpy(bytes.data() + i * 4, &x, 4);
      }
    }
    const int input = session.find_input(info.name);
    if (input < 0) return Status::error(StatusCode::kInvalidModel, "the converted model has no input '%s'", info.name);
    FOCAL_RETURN_IF_ERROR(session.set_input(input, v.shape, bytes.data(), bytes.size()));
    if (each) each(info.name, v, std::move(bytes));
  }
  return Status();
}

}  // namespace convert
}  // namespace focal
