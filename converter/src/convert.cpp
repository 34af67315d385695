#include "convert.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "focal/model.h"
#include "model_writer.h"
#include "presets/preset.h"
#include "readers/checkpoint.h"

namespace focal {
namespace convert {
namespace {

size_t align_up_64(size_t n) { return (n + 63) / 64 * 64; }

Result<nlohmann::json> read_config(const std::string& path) {
  if (path.empty()) return nlohmann::json::object();
  std::ifstream in(path);
  if (!in) return Status::error(StatusCode::kIoError, "cannot open config '%s'", path.c_str());
  nlohmann::json config = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    return Status::error(StatusCode::kInvalidArgument, "config '%s' is not a JSON object", path.c_str());
  }
  return config;
}

Result<std::vector<Checkpoint>> read_checkpoints(const std::vector<std::string>& paths) {
  if (paths.empty()) return Status::error(StatusCode::kInvalidArgument, "no --weights given");
  std::vector<Checkpoint> checkpoints;
  for (const std::string& path : paths) {
    Result<Checkpoint> c = read_checkpoint(path);
    if (!c.ok()) return c.status();
    checkpoints.push_back(std::move(c).value());
  }
  return checkpoints;
}

Status build(const Preset& preset, const nlohmann::json& config, const PresetOptions& options,
             GraphBuilder& builder) {
  try {
    return preset.build(config, options, builder);
  } catch (const std::exception& e) {  // config keys missing or of the wrong type
    return Status::error(StatusCode::kInvalidArgument, "preset %s: config: %s", preset.name, e.what());
  }
}

Status check_unused(const WeightSource& weights, bool strict, std::vector<std::string>* warnings) {
  const std::vector<std::string> unused = weights.unused();
  if (unused.empty()) return Status();
  std::string list;
  for (size_t i = 0; i < unused.size() && i < 5; ++i) list += (i ? ", " : "") + unused[i];
  if (unused.size() > 5) list += ", ...";
  if (strict) {
    return Status::error(StatusCode::kInvalidArgument, "%zu checkpoint tensors unused (--strict): %s",
                         unused.size(), list.c_str());
  }
  warnings->push_back(std::to_string(unused.size()) + " checkpoint tensors unused: " + list);
  return Status();
}

}  // namespace

bool parse_weight_dtype(const std::string& text, DType* dtype) {
  if (text == "f32") *dtype = DType::kF32;
  else if (text == "f16") *dtype = DType::kF16;
  else if (text == "bf16") *dtype = DType::kBF16;
  else if (text == "int8") *dtype = DType::kI8;
  else return false;
  return true;
}

Result<Converted> convert_checkpoint(const ConvertOptions& options) {
  const Preset* preset = find_preset(options.preset);
  if (preset == nullptr) {
    return Status::error(StatusCode::kInvalidArgument,
                         "unknown preset '%s' (focal convert --list-presets lists them)",
                         options.preset.c_str());
  }
  if (options.max_batch < 1 || options.max_seq < 0) {
    return Status::error(StatusCode::kInvalidArgument, "--max-batch must be >= 1 and --max-seq >= 0");
  }
  Result<nlohmann::json> config = read_config(options.config);
  if (!config.ok()) return config.status();
  Result<std::vector<Checkpoint>> checkpoints = read_checkpoints(options.weights);
  if (!checkpoints.ok()) return checkpoints.status();

  WeightSource weights(std::move(checkpoints).value());
  ModelWriter writer;
  writer.set_dense_weight_type(options.dtype);
  GraphBuilder builder(writer, weights);
  PresetOptions preset_options;
  preset_options.max_batch = options.max_batch;
  preset_options.max_seq = options.max_seq;
  FOCAL_RETURN_IF_ERROR(build(*preset, config.value(), preset_options, builder));

  Converted converted;
  FOCAL_RETURN_IF_ERROR(check_unused(weights, options.strict, &converted.warnings));
  writer.set_metadata(preset->name, "focal convert", weights.describe_sources());
  Result<std::vector<uint8_t>> bytes = writer.finish();
  if (!bytes.ok()) return bytes.status();
  converted.bytes = std::move(bytes).value();
  // What was written must load: the converter never hands out a file the engine refuses.
  // (The loader wants the bytes 64-byte aligned, as they are in an mmap.)
  std::unique_ptr<void, void (*)(void*)> aligned(
      std::aligned_alloc(kBufferAlignment, align_up_64(converted.bytes.size())), std::free);
  if (aligned == nullptr) return Status::error(StatusCode::kResourceExhausted, "no memory to verify the model");
  std::memcpy(aligned.get(), converted.bytes.data(), converted.bytes.size());
  Result<Model> loaded = Model::from_bytes(aligned.get(), converted.bytes.size());
  if (!loaded.ok()) return loaded.status();
  return converted;
}

}  // namespace convert
}  // namespace focal
