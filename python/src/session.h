// focal.Session: a session over an arena of its own, with its own thread pool. One
// session serves one thread at a time: a second thread entering while a call is in
// flight gets focal.Error (sessions are cheap; give each thread its own, or hold a lock).
// Every engine call runs with the GIL released.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "model.h"
#include "owned_session.h"

namespace focal {
namespace python {

class PySession {
 public:
  PySession(std::shared_ptr<ModelFile> model, int64_t max_batch, int64_t max_seq, int threads);

  Session& session() { return owned_.session(); }
  const std::shared_ptr<ModelFile>& model() const { return model_; }
  size_t arena_bytes() const { return owned_.arena_bytes(); }
  int threads() const { return threads_; }
  // Bit i: output i is written by the stage (stage -1: every output).
  uint64_t outputs_of_stage(int stage) const;

  // Marks the session busy for one call (see above); raises when it already is.
  class Use {
   public:
    explicit Use(PySession& s);
    ~Use() { session_.busy_.store(false); }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

   private:
    PySession& session_;
  };

 private:
  std::shared_ptr<ModelFile> model_;
  OwnedSession owned_;
  std::vector<uint64_t> stage_outputs_;
  int threads_ = 1;
  std::atomic<bool> busy_{false};
};

// generation.cpp: focal.Session.generate, .translate and .self_test.
void register_generation(pybind11::class_<PySession>& session);

}  // namespace python
}  // namespace focal
