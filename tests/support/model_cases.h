// Reference cases written by tests/models/make_reference.py (PyTorch, float64): a
// directory per case with case.json, inputs/ and expected/, and a checkpoint with its
// config.json (live cases) or a converted model.focal (tests/goldens). Helpers to load
// a case's model into a session and compare its outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/session.h"
#include "focal/tensor.h"
#include "readers/checkpoint.h"
#include "support/aligned_buffer.h"

namespace focal {
namespace testing {

struct ModelCase {
  std::string dir;
  nlohmann::json spec;  // case.json
  std::string name() const;
  focal::convert::CheckpointTensor array(const std::string& relative) const;  // .npy under dir
};

// Every case directory under `root` whose family is `family`, in name order.
std::vector<ModelCase> model_cases(const std::string& root, const std::string& family);

// A converted model and a session over an arena of its own.
struct LoadedCase {
  std::unique_ptr<AlignedBuffer> file;
  std::unique_ptr<focal::Model> model;
  std::unique_ptr<AlignedBuffer> arena;
  std::unique_ptr<focal::Session> session;
};

// Loads .focal bytes and creates a session over an arena of its own.
std::unique_ptr<LoadedCase> load_model_bytes(const std::vector<uint8_t>& bytes);
// The case's committed model.focal (goldens).
std::unique_ptr<LoadedCase> load_golden(const ModelCase& c);

// Sets a model input from an array (ints to i32, floats to f32).
void set_input(focal::Session& session, const std::string& name, const focal::convert::CheckpointTensor& array);

// Largest |got - want| over |want| + 1 (a mixed error, fine for both large and small
// values), optionally only at positions where mask[b, s] == 1 for [B, S, ...] arrays.
double max_error(const float* got, const std::vector<float>& want, const std::vector<int64_t>& shape,
                 const std::vector<float>* mask = nullptr);

}  // namespace testing
}  // namespace focal
