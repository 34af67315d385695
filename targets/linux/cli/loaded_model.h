// A model file mapped and verified, for the commands that read one.
#pragma once

#include <memory>
#include <string>

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

// "f32 [batch=2, seq=8, 8]": dtype and planned shape with symbol names (printable()).
std::string describe_tensor(const Model& model, const TensorInfo& tensor);

}  // namespace cli
}  // namespace focal
