#include "cli/loaded_model.h"

#include <cstdio>

#include "cli/command_line.h"
#include "cli/printable.h"

namespace focal {
namespace cli {

Status open_session(const Model& model, const SessionOptions& options, OwnedSession* out) {
  const auto needed = Session::required_arena_bytes(model, options);
  if (!needed.ok()) return needed.status();
  out->arena_bytes = needed.value();
  out->arena.reset(std::aligned_alloc(kBufferAlignment, (out->arena_bytes + 63) / 64 * 64 + 64));
  if (out->arena == nullptr) {
    return Status::error(StatusCode::kResourceExhausted, "cannot allocate an arena of %zu bytes", out->arena_bytes);
  }
  auto session = Session::create(model, options, out->arena.get(), out->arena_bytes);
  if (!session.ok()) return session.status();
  out->session = std::make_unique<Session>(session.value());
  return Status();
}

std::unique_ptr<LoadedModel> load_model_or_report(const char* command, const char* path) {
  auto file = MappedFile::open(path);
  if (!file.ok()) {
    report_failure(command, file.status());
    return nullptr;
  }
  auto model = Model::from_bytes(file->data(), file->size());
  if (!model.ok()) {
    std::fprintf(stderr, "focal %s: %s: %s\n", command, printable(path).c_str(),
                 terminal_text(model.status().message()).c_str());
    return nullptr;
  }
  return std::unique_ptr<LoadedModel>(
      new LoadedModel{path, std::move(file.value()), model.value()});
}

std::string describe_tensor(const Model& model, const TensorInfo& tensor) {
  std::string text = std::string(dtype_name(tensor.dtype)) + " [";
  for (int i = 0; i < tensor.shape.rank; ++i) {
    if (i > 0) text += ", ";
    if (tensor.dim_symbols[i] >= 0)
      text += printable(model.symbol(tensor.dim_symbols[i]).name) + "=";
    text += std::to_string(tensor.shape.dims[i]);
  }
  return text + "]";
}

}  // namespace cli
}  // namespace focal
