#include "calibration_inputs.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "json/json_file.h"
#include "readers/checkpoint.h"

namespace focal {
namespace convert {
namespace {

std::string input_names(const Model& model) {
  std::string names;
  for (int i = 0; i < model.input_count(); ++i) {
    names += (i ? ", " : "") + std::string(model.tensor(model.input_tensor(i)).name);
  }
  return names;
}

// The nested array's shape (rank <= kMaxRank, rectangular) and its numbers, row-major.
bool flatten(const nlohmann::json& array, int depth, reference::Value* value) {
  if (!array.is_array()) {
    if (!array.is_number()) return false;
    value->values.push_back(array.get<double>());
    return true;
  }
  if (depth >= kMaxRank || array.empty()) return false;
  const int64_t size = static_cast<int64_t>(array.size());
  if (value->shape.rank <= depth) {
    value->shape.rank = depth + 1;
    value->shape.dims[depth] = size;
  } else if (value->shape.dims[depth] != size) {
    return false;
  }
  return std::all_of(array.begin(), array.end(),
                     [&](const nlohmann::json& item) { return flatten(item, depth + 1, value); });
}

// Input `input` of the model from the case's JSON value; a flat list of a [batch, seq] input is batch 1.
Result<reference::Value> read_input(const Model& model, int input, const nlohmann::json& array) {
  const TensorInfo info = model.tensor(model.input_tensor(input));
  reference::Value value;
  value.tensor = model.input_tensor(input);
  if (!flatten(array, 0, &value) || value.shape.element_count() != static_cast<int64_t>(value.values.size())) {
    return Status::error(StatusCode::kInvalidArgument, "'%s' is not a rectangular nested array of numbers", info.name);
  }
  if (value.shape.rank == 1 && info.shape.rank == 2) value.shape = Shape{2, {1, value.shape.dims[0]}};
  if (value.shape.rank != info.shape.rank) {
    return Status::error(StatusCode::kInvalidArgument, "'%s' has rank %d, the model's input has rank %d", info.name,
                         value.shape.rank, info.shape.rank);
  }
  const bool integral = std::all_of(value.values.begin(), value.values.end(),
                                    [](double x) { return x == std::floor(x) && std::fabs(x) < 2147483648.0; });
  if (info.dtype == DType::kI32 && !integral) {
    return Status::error(StatusCode::kInvalidArgument, "'%s' holds ids or mask values: whole numbers only", info.name);
  }
  return value;
}

Result<std::vector<reference::Value>> read_case(const std::string& path, const Model& model) {
  Result<nlohmann::json> read = read_json_object(path, "calibration case");
  if (!read.ok()) return read.status();
  const nlohmann::json& object = read.value();
  std::vector<reference::Value> values;
  for (int i = 0; i < model.input_count(); ++i) {
    const char* name = model.tensor(model.input_tensor(i)).name;
    if (!object.contains(name)) {
      return Status::error(StatusCode::kInvalidArgument, "calibration case '%s' has no '%s' (give every input: %s)",
                           path.c_str(), name, input_names(model).c_str());
    }
    Result<reference::Value> value = read_input(model, i, object.at(name));
    if (!value.ok()) return Status::error(value.status().code(), "calibration case '%s': %s", path.c_str(), value.status().message());
    values.push_back(std::move(value).value());
  }
  if (object.size() != values.size()) {
    return Status::error(StatusCode::kInvalidArgument, "calibration case '%s' names an input the model does not have (its inputs: %s)",
                         path.c_str(), input_names(model).c_str());
  }
  return values;
}

}  // namespace

Result<std::vector<std::vector<reference::Value>>> read_calibration_cases(const std::string& dir, const Model& model) {
  std::error_code error;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
  }
  if (error) return Status::error(StatusCode::kIoError, "--calibration '%s': %s", dir.c_str(), error.message().c_str());
  if (paths.empty()) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--calibration '%s' holds no .json case (one file per case: {\"%s\": [...], ...})", dir.c_str(),
                         model.input_count() > 0 ? model.tensor(model.input_tensor(0)).name : "input");
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::vector<reference::Value>> cases;
  for (const std::string& path : paths) {
    Result<std::vector<reference::Value>> values = read_case(path, model);
    if (!values.ok()) return values.status();
    cases.push_back(std::move(values).value());
  }
  return cases;
}

}  // namespace convert
}  // namespace focal
