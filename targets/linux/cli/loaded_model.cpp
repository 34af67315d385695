#include "cli/loaded_model.h"

#include <cstdio>

#include "cli/command_line.h"
#include "cli/printable.h"

namespace focal {
namespace cli {

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
