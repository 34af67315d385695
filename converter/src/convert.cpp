#include "convert.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>

#include "assign_or_return.h"
#include "config_overrides.h"
#include "convert_accuracy.h"
#include "convert_self_test.h"
#include "convert_static.h"
#include "file_buffer.h"
#include "fit/fit.h"
#include "hf/hf_folder.h"
#include "json/json_file.h"
#include "model_writer.h"
#include "presets/preset.h"
#include "presets/preset_detection.h"
#include "presets/tensor_renames.h"
#include "spec/spec_builder.h"
#include "tokenizers/tokenizer_files.h"
#include "readers/checkpoint.h"

namespace focal {
namespace convert {
namespace {

Result<nlohmann::json> read_config(const std::string& path) {
  if (path.empty()) return nlohmann::json::object();
  return read_json_object(path, "config");
}

// `folder`: the --hf folder the weights came from (its shard index is checked); null
// without --hf.
Result<std::vector<Checkpoint>> read_checkpoints(const ConvertOptions& options, const HfFolder* folder) {
  const std::vector<std::string>& paths = options.weights;
  if (paths.empty()) return Status::error(StatusCode::kInvalidArgument, "no --weights given");
  std::vector<Checkpoint> checkpoints;
  for (const std::string& path : paths) {
    report(options, "reading " + path);
    Result<Checkpoint> c = read_checkpoint(path);
    if (!c.ok()) return c.status();
    checkpoints.push_back(std::move(c).value());
  }
  if (folder != nullptr && folder->shards != nullptr) FOCAL_RETURN_IF_ERROR(check_shards(*folder->shards, checkpoints));
  FOCAL_RETURN_IF_ERROR(rename_tensors(options.renames, &checkpoints));
  return checkpoints;
}

// Builds the graph; config errors come back named "preset NAME: config: ...".
Status build(const Preset& preset, const nlohmann::json& config, const ConvertOptions& options,
             const HfFolder* folder, GraphBuilder& builder, std::vector<std::string>* warnings) {
  PresetOptions preset_options;
  preset_options.max_batch = options.max_batch;
  preset_options.max_seq = options.max_seq;
  preset_options.preset = preset.name;
  preset_options.logits_all = options.logits_all;
  bool logits_taken = false;
  preset_options.logits_option_taken = &logits_taken;
  preset_options.warnings = warnings;
  const bool sentence = folder != nullptr && folder->sentence.present;
  bool sentence_taken = false;
  preset_options.sentence = sentence ? &folder->sentence.pooling : nullptr;
  preset_options.sentence_taken = &sentence_taken;
  FOCAL_RETURN_IF_ERROR(preset.build(config, preset_options, builder));
  if (sentence && !sentence_taken) {
    return Status::error(StatusCode::kInvalidArgument,
                         "the folder is a sentence-transformers pipeline (modules.json), but preset %s is not an "
                         "encoder that pools one (bert, roberta, distilbert)",
                         preset.name);
  }
  if (options.logits_all && !logits_taken) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--logits all is for decoders (gpt2, llama, qwen2, qwen3, gemma, phi3); %s has no per-position logits to add",
                         preset.name);
  }
  return Status();
}

// The file's bytes as the caller gets them, released from `file` as they are appended
// (reserved, not zero-filled first: that would touch a second copy's pages at once).
std::vector<uint8_t> take_bytes(FileBuffer& file) {
  constexpr size_t kStep = size_t(16) << 20;
  std::vector<uint8_t> bytes;
  bytes.reserve(file.size());
  for (size_t done = 0; done < file.size(); done += kStep) {
    const size_t n = std::min(kStep, file.size() - done);
    bytes.insert(bytes.end(), file.data() + done, file.data() + done + n);
    file.release(done, n);
  }
  return bytes;
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

float computed_self_test_tolerance(DType dtype, bool int8_activations, DType kv_dtype) {
  // The same for every float weight type (see convert.h); int4 weights always quantize rows.
  if (int8_activations || dtype == DType::kI4 || kv_dtype == DType::kI8) return kInt8ActivationTolerance;
  return kv_dtype == DType::kF16 ? 1e-3f : 1e-4f;
}

bool parse_weight_dtype(const std::string& text, DType* dtype) {
  if (text == "f32") *dtype = DType::kF32;
  else if (text == "f16") *dtype = DType::kF16;
  else if (text == "bf16") *dtype = DType::kBF16;
  else if (text == "int8") *dtype = DType::kI8;
  else if (text == "int4") *dtype = DType::kI4;
  else return false;
  return true;
}

namespace {

Status check_options(const ConvertOptions& options) {
  if (!options.spec.empty() && !options.preset.empty()) {
    return Status::error(StatusCode::kInvalidArgument, "give --preset or --spec, not both");
  }
  if (options.spec.empty() && options.preset != "auto" && find_preset(options.preset) == nullptr) {
    return Status::error(StatusCode::kInvalidArgument,
                         "unknown preset '%s' (focal convert --list-presets lists them; --preset auto picks one)",
                         options.preset.c_str());
  }
  if (!options.self_test && !options.self_test_dir.empty()) {
    return Status::error(StatusCode::kInvalidArgument, "give --self-test DIR or --no-self-test, not both");
  }
  if (options.max_batch < 1 || options.max_seq < 0) {
    return Status::error(StatusCode::kInvalidArgument, "--max-batch must be >= 1 and --max-seq >= 0");
  }
  return check_int8_options(options);
}

// Progress lines while the preset takes checkpoint tensors: one per tenth of them.
void report_building(const ConvertOptions& options, const Preset& preset, WeightSource& weights) {
  weights.set_progress([&options, &preset, reported_tenth = -1](size_t taken, size_t total) mutable {
    const int tenth = total > 0 ? static_cast<int>(10 * taken / total) : 10;
    if (tenth == reported_tenth) return;
    reported_tenth = tenth;
    report(options, "building " + std::string(preset.name) + ": " + std::to_string(taken) + " of " +
                        std::to_string(total) + " checkpoint tensors");
  });
}

// `accuracy`: the measured layers with the ones to keep, for the int8-activation file;
// null for a weight-only one (and the measurement's own build).
Status configure_writer(const ConvertOptions& options, const AccuracyReport* accuracy, ModelWriter& writer) {
  writer.set_dense_weight_type(options.dtype);
  writer.keep_f32(std::set<std::string>(options.float_weights.begin(), options.float_weights.end()));
  writer.set_int4_group(options.group_size == 0 ? kDefaultInt4Group : options.group_size);
  if (accuracy != nullptr) {
    writer.set_int8_activations(true);
    writer.keep_weight_only(kept_weights(*accuracy));
  }
  if (options.embedding_dtype != DType::kF32 && options.embedding_dtype != DType::kF16 &&
      options.embedding_dtype != DType::kI8) {
    return Status::error(StatusCode::kInvalidArgument, "--embedding-dtype must be f32, f16 or int8");
  }
  writer.set_embedding_table_type(options.embedding_dtype);
  if (options.kv_dtype != DType::kF32 && options.kv_dtype != DType::kF16 && options.kv_dtype != DType::kI8) {
    return Status::error(StatusCode::kInvalidArgument, "--kv-dtype must be f32, f16 or int8");
  }
  writer.set_kv_cache_type(options.kv_dtype);
  return Status();
}

Status add_tokenizers(const ConvertOptions& options, ModelWriter& writer) {
  for (const auto& [spec, target] : {std::pair<const std::string*, bool>{&options.tokenizer, false},
                                     {&options.target_tokenizer, true}}) {
    if (spec->empty()) continue;
    Result<TokenizerSpec> tokenizer = read_tokenizer(*spec, target);
    if (!tokenizer.ok()) return tokenizer.status();
    if (!tokenizer->chat_note.empty()) report(options, tokenizer->chat_note);
    if (target) writer.set_target_tokenizer(std::move(tokenizer).value());
    else writer.set_tokenizer(std::move(tokenizer).value());
  }
  return Status();
}

const Preset kSpecPreset{"spec", "a declarative model spec", build_from_spec};

// --preset NAME, the spec, or the preset --preset auto finds (said on the progress line).
Status choose_preset(const ConvertOptions& options, const nlohmann::json& config, const WeightSource& weights,
                     const Preset** chosen) {
  *chosen = !options.spec.empty() ? &kSpecPreset : find_preset(options.preset);
  if (options.spec.empty() && options.preset == "auto") {
    Result<DetectedPreset> detected = detect_preset(config, weights);
    if (!detected.ok()) return detected.status();
    report(options, std::string("preset auto: chose ") + detected->preset->name + " (" + detected->reason + ")");
    *chosen = detected->preset;
  }
  return Status();
}

// The graph, weights, tokenizers and metadata in `writer`, unused tensors warned about.
Status build_model(const ConvertOptions& options, const nlohmann::json& config, const HfFolder* folder,
                   const AccuracyReport* accuracy, ModelWriter& writer, Converted* converted) {
  Result<std::vector<Checkpoint>> checkpoints = read_checkpoints(options, folder);
  if (!checkpoints.ok()) return checkpoints.status();
  WeightSource weights(std::move(checkpoints).value());
  const Preset* chosen = nullptr;
  FOCAL_RETURN_IF_ERROR(choose_preset(options, config, weights, &chosen));
  const Preset& preset = *chosen;
  report_building(options, preset, weights);
  FOCAL_RETURN_IF_ERROR(configure_writer(options, accuracy, writer));
  GraphBuilder builder(writer, weights);
  FOCAL_RETURN_IF_ERROR(build(preset, config, options, folder, builder, &converted->warnings));
  FOCAL_RETURN_IF_ERROR(check_unused(weights, options.strict, &converted->warnings));
  FOCAL_RETURN_IF_ERROR(add_tokenizers(options, writer));
  std::string architecture = preset.name;
  if (!options.spec.empty()) {
    FOCAL_ASSIGN_OR_RETURN(architecture, config_string(config, "name", "spec"));
  }
  writer.set_metadata(architecture, "focal convert", weights.describe_sources());
  if (folder != nullptr) {
    for (const auto& [key, value] : folder->generation) writer.add_hyperparameter(key, value);
    converted->warnings.insert(converted->warnings.end(), folder->warnings.begin(), folder->warnings.end());
  }
  return Status();
}

// The file, written once: the writer's constants move into it (one copy of the weights
// is resident at any time), and its pages are released as they are copied into
// converted.bytes. The self-test is sized before the write and completed after it.
Result<FileBuffer> write_model(const ConvertOptions& options, ModelWriter& writer, Converted* converted) {
  Result<SelfTestPlan> plan = plan_self_test(options, writer);
  if (!plan.ok()) return plan.status();
  converted->self_test_computed = plan->computed;
  report(options, "planning memory and writing");
  Result<FileBuffer> file = writer.finish_moving_constants();
  if (!file.ok()) return file.status();
  FOCAL_RETURN_IF_ERROR(complete_self_test(options, plan.value(), file.value()));
  return file;
}

void report_self_test(const ConvertOptions& options, const Converted& converted) {
  if (converted.self_tests == 0) return;
  char line[160];
  (void)std::snprintf(line, sizeof(line), "self-test passed: worst error %.3g of its tolerance, against %s",
                      static_cast<double>(converted.self_test_worst_ratio),
                      converted.self_test_computed ? "expected outputs computed in double precision"
                                                   : "the expected outputs given");
  report(options, line);
}

// Int8 activations, first pass: the model built in weight-only int8 (f32 activations),
// written to a draft and measured layer by layer (convert_accuracy.h).
Result<AccuracyReport> measure_before_converting(const ConvertOptions& options, const nlohmann::json& config,
                                                 const HfFolder* folder) {
  report(options, "int8 activations: building in weight-only int8 first to measure each dense layer");
  ModelWriter writer;
  Converted draft;
  FOCAL_RETURN_IF_ERROR(build_model(options, config, folder, nullptr, writer, &draft));
  return measure_layers(options, writer);
}

}  // namespace

namespace {

// --hf DIR: the folder's files in place of --weights and --config, its tokenizer unless
// --tokenizer is given, its sentence-transformers max_seq_length unless --max-seq is, and
// the preset from config.json unless --preset names one.
Status take_folder(const ConvertOptions& given, const HfFolder& folder, ConvertOptions* options) {
  if (!given.spec.empty() || !given.weights.empty() || !given.config.empty()) {
    return Status::error(StatusCode::kInvalidArgument, "--hf reads the folder's weights and config.json: give it "
                                                       "without --weights, --config and --spec");
  }
  *options = given;
  options->weights = folder.weights;
  options->config = folder.config;
  if (options->tokenizer.empty()) options->tokenizer = folder.tokenizer;
  if (options->target_tokenizer.empty() && given.tokenizer.empty()) options->target_tokenizer = folder.target_tokenizer;
  if (options->max_seq == 0) options->max_seq = folder.sentence.max_seq_length;
  if (!options->preset.empty() && options->preset != "auto") return Status();
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json config, read_config(folder.config));
  FOCAL_ASSIGN_OR_RETURN(const DetectedPreset detected, preset_from_config(config));
  report(given, std::string("--hf: preset ") + detected.preset->name + " (" + detected.reason + ")");
  options->preset = detected.preset->name;
  return Status();
}

// --quantize static: the draft in f32 weights and f32 activations, written with its
// self-test and checked by it, then calibrated and rewritten (convert_static.h).
Result<Converted> convert_static(const ConvertOptions& options, const nlohmann::json& config, const HfFolder* folder) {
  ConvertOptions draft_options = options;
  draft_options.dtype = DType::kF32;
  draft_options.embedding_dtype = DType::kF32;
  report(options, "static int8: building the f32 draft to calibrate");
  ModelWriter writer;
  Converted draft;
  FOCAL_RETURN_IF_ERROR(build_model(draft_options, config, folder, nullptr, writer, &draft));
  Result<FileBuffer> file = write_model(draft_options, writer, &draft);
  if (!file.ok()) return file.status();
  FOCAL_RETURN_IF_ERROR(load_and_self_test(file.value(), &draft));
  FOCAL_ASSIGN_OR_RETURN(Converted converted, quantize_static_from_draft(options, file.value(), !draft.self_test_computed));
  converted.warnings = std::move(draft.warnings);
  if (converted.self_tests > 0) report(options, "self-test passed: the int8 model's own outputs, bit for bit");
  return converted;
}

Result<Converted> convert_options(const ConvertOptions& options, const HfFolder* folder) {
  FOCAL_RETURN_IF_ERROR(check_options(options));
  Result<nlohmann::json> config = read_config(options.spec.empty() ? options.config : options.spec);
  if (!config.ok()) return config.status();
  FOCAL_RETURN_IF_ERROR(apply_overrides(options.overrides, !options.spec.empty(), &config.value()));
  if (options.quantize_static) return convert_static(options, config.value(), folder);
  Converted converted;
  if (options.int8_activations) {
    FOCAL_ASSIGN_OR_RETURN(converted.accuracy, measure_before_converting(options, config.value(), folder));
  }
  ModelWriter writer;
  FOCAL_RETURN_IF_ERROR(build_model(options, config.value(), folder,
                                    options.int8_activations ? &converted.accuracy : nullptr, writer, &converted));
  Result<FileBuffer> file = write_model(options, writer, &converted);
  if (!file.ok()) return file.status();
  report(options, "verifying the written model");
  FOCAL_RETURN_IF_ERROR(load_and_self_test(file.value(), &converted));
  converted.bytes = take_bytes(file.value());
  report_self_test(options, converted);
  return converted;
}

}  // namespace

Result<Converted> convert_checkpoint(const ConvertOptions& options) {
  if (!options.fit.empty()) return convert_to_fit(options);  // which converts once per choice
  if (options.hf_dir.empty()) return convert_options(options, nullptr);
  report(options, "reading the Hugging Face folder " + options.hf_dir);
  FOCAL_ASSIGN_OR_RETURN(const HfFolder folder, read_hf_folder(options.hf_dir));
  ConvertOptions resolved;
  FOCAL_RETURN_IF_ERROR(take_folder(options, folder, &resolved));
  return convert_options(resolved, &folder);
}

}  // namespace convert
}  // namespace focal
