// A model file mapped and verified, for the commands that read one.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "cli/command_line.h"
#include "focal/model.h"
#include "mapped_file.h"

namespace focal {
namespace cli {

struct LoadedModel {
  std::string path;
  MappedFile file;
  Model model;
};

// Null after printing "focal <command>: <path>: <reason>" to stderr.
std::unique_ptr<LoadedModel> load_model_or_report(const char* command, const char* path);

// How a command that reads one model starts, whatever it does next: its command line
// parsed into an Options with a `model` path, then that model loaded. False when the
// command ends there, with the code to exit with: 0 after --help, 2 after a usage error
// (printed with the usage), 1 when the model cannot be loaded (printed).
class StartedCommand {
 public:
  StartedCommand(int exit_code, std::unique_ptr<LoadedModel> loaded)
      : exit_code_(exit_code), loaded_(std::move(loaded)) {}
  explicit operator bool() const { return loaded_ != nullptr; }
  const LoadedModel* operator->() const { return loaded_.get(); }
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
  std::unique_ptr<LoadedModel> loaded_;
};

template <class Options>
StartedCommand start_command(const char* command, int argc, char** argv, const char* usage,
                             Status (*parse)(int, char**, Options*), Options* options) {
  const int exit_code = parse_command_line(command, argc, argv, usage, parse, options);
  if (exit_code >= 0) return StartedCommand(exit_code, nullptr);
  std::unique_ptr<LoadedModel> loaded = load_model_or_report(command, options->model);
  return StartedCommand(loaded ? 0 : 1, std::move(loaded));
}

// "f32 [batch=2, seq=8, 8]": dtype and planned shape with symbol names (printable()).
std::string describe_tensor(const Model& model, const TensorInfo& tensor);

}  // namespace cli
}  // namespace focal
