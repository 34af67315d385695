// A model file mapped and verified, for the commands that read one.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "focal/model.h"
#include "focal/session.h"
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

// A session over an arena of its own (64-byte aligned, freed with it), for the commands
// that run a model. The model must outlive it.
struct OwnedSession {
  std::unique_ptr<void, void (*)(void*)> arena{nullptr, std::free};
  size_t arena_bytes = 0;
  std::unique_ptr<Session> session;
};

// Sizes the arena for these options, allocates it and creates the session.
Status open_session(const Model& model, const SessionOptions& options, OwnedSession* out);

// "f32 [batch=2, seq=8, 8]": dtype and planned shape with symbol names (printable()).
std::string describe_tensor(const Model& model, const TensorInfo& tensor);

}  // namespace cli
}  // namespace focal
