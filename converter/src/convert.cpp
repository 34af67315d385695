#include "convert.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "focal/model.h"
#include "focal/self_test.h"
#include "focal/session.h"
#include "assign_or_return.h"
#include "file_buffer.h"
#include "model_writer.h"
#include "presets/preset.h"
#include "spec/spec_builder.h"
#include "tokenizers/tokenizer_files.h"
#include "readers/checkpoint.h"
#include "readers/npy.h"
#include "reference/evaluator.h"
#include "reference/generated_inputs.h"
#include "reference/self_test_cases.h"

namespace focal {
namespace convert {
namespace {

size_t align_up_64(size_t n) { return (n + 63) / 64 * 64; }

Result<nlohmann::json> read_config(const std::string& path) {
  if (path.empty()) return nlohmann::json::object();
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  std::ifstream in(path);
  if (!in) return Status::error(StatusCode::kIoError, "cannot open config '%s'", path.c_str());
  nlohmann::json config = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    return Status::error(StatusCode::kInvalidArgument, "config '%s' is not a JSON object", path.c_str());
  }
  return config;
}

void report(const ConvertOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

Result<std::vector<Checkpoint>> read_checkpoints(const ConvertOptions& options) {
  const std::vector<std::string>& paths = options.weights;
  if (paths.empty()) return Status::error(StatusCode::kInvalidArgument, "no --weights given");
  std::vector<Checkpoint> checkpoints;
  for (const std::string& path : paths) {
    report(options, "reading " + path);
    Result<Checkpoint> c = read_checkpoint(path);
    if (!c.ok()) return c.status();
    checkpoints.push_back(std::move(c).value());
  }
  return checkpoints;
}

// Builds the graph; config errors come back named "preset NAME: config: ...".
Status build(const Preset& preset, const nlohmann::json& config, const ConvertOptions& options,
             GraphBuilder& builder) {
  PresetOptions preset_options;
  preset_options.max_batch = options.max_batch;
  preset_options.max_seq = options.max_seq;
  preset_options.preset = preset.name;
  return preset.build(config, preset_options, builder);
}

// An .npy array as a value of model tensor `tensor` (ids and masks exactly as int32, as
// they are stored; floats holding whole numbers are taken, others refused).
Result<reference::Value> read_value(int tensor, DType dtype, const std::string& path) {
  Result<Checkpoint> file = read_npy(path);
  if (!file.ok()) return file.status();
  const CheckpointTensor& array = file->tensors[0];
  reference::Value value;
  value.tensor = tensor;
  value.shape.rank = static_cast<int>(array.shape.size());
  if (value.shape.rank > kMaxRank) {
    return Status::error(StatusCode::kInvalidArgument, "'%s' has rank %d, more than %d", path.c_str(),
                         value.shape.rank, kMaxRank);
  }
  for (int i = 0; i < value.shape.rank; ++i) value.shape.dims[i] = array.shape[static_cast<size_t>(i)];
  if (dtype == DType::kI32) {
    // Exactly, never through float: ids above 2^24 stay themselves, ids beyond int32 are
    // refused (naming the file, the element and the value).
    const Result<std::vector<int32_t>> ids = array.to_i32();
    if (!ids.ok()) return Status::error(ids.status().code(), "%s: %s", path.c_str(), ids.status().message());
    value.values.assign(ids->begin(), ids->end());
    return value;
  }
  for (float x : array.to_f32()) value.values.push_back(x);
  return value;
}

// The value's bytes in the tensor's dtype (f32, or i32 for ids and masks), for the
// writer's tensor of the same name.
TensorValueSpec value_spec(const Model& draft, const ModelWriter& writer, const reference::Value& value) {
  const TensorInfo info = draft.tensor(value.tensor);
  TensorValueSpec spec{writer.find_tensor(info.name), {}, {}};
  for (int i = 0; i < value.shape.rank; ++i) spec.shape.push_back(value.shape.dims[i]);
  spec.bytes.resize(value.values.size() * 4);
  for (size_t i = 0; i < value.values.size(); ++i) {
    const int32_t integer = static_cast<int32_t>(value.values[i]);
    const float real = static_cast<float>(value.values[i]);
    std::memcpy(spec.bytes.data() + i * 4, info.dtype == DType::kI32 ? static_cast<const void*>(&integer) : &real, 4);
  }
  return spec;
}

// The self-test's inputs: DIR/inputs/<input>.npy for every input, or generated ones.
Result<std::vector<reference::Value>> self_test_inputs(const ConvertOptions& options, const Model& draft) {
  if (options.self_test_dir.empty()) return reference::generate_inputs(draft);
  std::vector<reference::Value> inputs;
  for (int i = 0; i < draft.input_count(); ++i) {
    const TensorInfo info = draft.tensor(draft.input_tensor(i));
    Result<reference::Value> v =
        read_value(draft.input_tensor(i), info.dtype, options.self_test_dir + "/inputs/" + info.name + ".npy");
    if (!v.ok()) return v.status();
    inputs.push_back(std::move(v).value());
  }
  return inputs;
}

// DIR/expected/<output>.npy for the outputs that have one (none without a DIR).
Result<std::vector<reference::Value>> expected_from_files(const ConvertOptions& options, const Model& draft) {
  std::vector<reference::Value> expected;
  for (int i = 0; i < draft.output_count() && !options.self_test_dir.empty(); ++i) {
    const TensorInfo info = draft.tensor(draft.output_tensor(i));
    const std::string path = options.self_test_dir + "/expected/" + info.name + ".npy";
    if (::access(path.c_str(), F_OK) != 0) continue;  // outputs without an expected file are not checked
    Result<reference::Value> v = read_value(draft.output_tensor(i), info.dtype, path);
    if (!v.ok()) return v.status();
    expected.push_back(std::move(v).value());
  }
  return expected;
}

// Every f32 output for these inputs, computed in double by the reference evaluator.
Result<std::vector<reference::Value>> computed_outputs(const Model& draft,
                                                       const std::vector<reference::Value>& inputs) {
  Result<reference::Evaluator> evaluator = reference::Evaluator::create(draft);
  if (!evaluator.ok()) return evaluator.status();
  Result<std::vector<reference::Value>> outputs = reference::evaluate_outputs(evaluator.value(), inputs);
  if (!outputs.ok()) {
    return Status::error(outputs.status().code(), "self-test: the reference evaluator refused the inputs: %s",
                         outputs.status().message());
  }
  return outputs;
}

std::string describe_inputs(const Model& draft, const std::vector<reference::Value>& inputs) {
  std::string text;
  for (const reference::Value& v : inputs) {
    text += (text.empty() ? "" : ", ") + std::string(draft.tensor(v.tensor).name) + " [";
    for (int i = 0; i < v.shape.rank; ++i) text += (i ? ", " : "") + std::to_string(v.shape.dims[i]);
    text += "]";
  }
  return text;
}

Status add_self_test(const ConvertOptions& options, const Model& draft, ModelWriter& writer, Converted* converted) {
  Result<std::vector<reference::Value>> inputs = self_test_inputs(options, draft);
  if (!inputs.ok()) return inputs.status();
  Result<std::vector<reference::Value>> expected = expected_from_files(options, draft);
  if (!expected.ok()) return expected.status();
  converted->self_test_computed = expected->empty();
  if (converted->self_test_computed) {
    report(options, "self-test: computing expected outputs in double precision (reference evaluator) for " +
                        std::string(options.self_test_dir.empty() ? "generated" : "given") +
                        " inputs: " + describe_inputs(draft, inputs.value()));
    Result<std::vector<reference::Value>> computed = computed_outputs(draft, inputs.value());
    if (!computed.ok()) return computed.status();
    expected.value() = std::move(computed).value();
  }
  if (expected->empty()) return Status::error(StatusCode::kInvalidArgument, "self-test: the model has no f32 output");
  SelfTestSpec test;
  const float default_tolerance =
      converted->self_test_computed ? computed_self_test_tolerance(options.dtype) : 1e-4f;
  test.atol = options.self_test_atol > 0.0f ? options.self_test_atol : default_tolerance;
  test.rtol = options.self_test_rtol > 0.0f ? options.self_test_rtol : default_tolerance;
  for (const reference::Value& v : inputs.value()) test.inputs.push_back(value_spec(draft, writer, v));
  for (const reference::Value& v : expected.value()) test.expected_outputs.push_back(value_spec(draft, writer, v));
  writer.add_self_test(std::move(test));
  return Status();
}

// Loads the written file (in its own page-aligned buffer, as an mmap would be) and runs
// the stored self-tests: the converter never hands out a file the engine refuses or
// gets wrong.
Status load_and_self_test(const FileBuffer& file, Converted* converted) {
  Result<Model> model = Model::from_bytes(file.data(), file.size());
  if (!model.ok()) return model.status();
  if (model->self_test_count() == 0) return Status();
  const size_t arena_bytes = Session::required_arena_bytes(*model, SessionOptions()).value();
  std::unique_ptr<void, void (*)(void*)> arena(std::aligned_alloc(kBufferAlignment, align_up_64(arena_bytes)),
                                               std::free);
  Result<Session> session = Session::create(*model, SessionOptions(), arena.get(), arena_bytes);
  if (!session.ok()) return session.status();
  Result<SelfTestReport> report = run_self_tests(session.value());
  if (!report.ok()) return report.status();
  converted->self_tests = report->cases;
  converted->self_test_worst_ratio = report->worst_tolerance_ratio;
  if (report->failed_cases > 0) {
    return Status::error(StatusCode::kInvalidModel,
                         "the written model fails %d of %d self-tests (worst error %.3g of its tolerance)",
                         report->failed_cases, report->cases, static_cast<double>(report->worst_tolerance_ratio));
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

float computed_self_test_tolerance(DType dtype) {
  (void)dtype;  // the same for every weight type: see convert.h
  return 1e-4f;
}

bool parse_weight_dtype(const std::string& text, DType* dtype) {
  if (text == "f32") *dtype = DType::kF32;
  else if (text == "f16") *dtype = DType::kF16;
  else if (text == "bf16") *dtype = DType::kBF16;
  else if (text == "int8") *dtype = DType::kI8;
  else return false;
  return true;
}

namespace {

Status check_options(const ConvertOptions& options) {
  if (!options.spec.empty() && !options.preset.empty()) {
    return Status::error(StatusCode::kInvalidArgument, "give --preset or --spec, not both");
  }
  if (options.spec.empty() && find_preset(options.preset) == nullptr) {
    return Status::error(StatusCode::kInvalidArgument,
                         "unknown preset '%s' (focal convert --list-presets lists them)",
                         options.preset.c_str());
  }
  if (!options.self_test && !options.self_test_dir.empty()) {
    return Status::error(StatusCode::kInvalidArgument, "give --self-test DIR or --no-self-test, not both");
  }
  if (options.max_batch < 1 || options.max_seq < 0) {
    return Status::error(StatusCode::kInvalidArgument, "--max-batch must be >= 1 and --max-seq >= 0");
  }
  return Status();
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

Status configure_writer(const ConvertOptions& options, ModelWriter& writer) {
  writer.set_dense_weight_type(options.dtype);
  if (options.embedding_dtype != DType::kF32 && options.embedding_dtype != DType::kF16 &&
      options.embedding_dtype != DType::kI8) {
    return Status::error(StatusCode::kInvalidArgument, "--embedding-dtype must be f32, f16 or int8");
  }
  writer.set_embedding_table_type(options.embedding_dtype);
  return Status();
}

Status add_tokenizers(const ConvertOptions& options, ModelWriter& writer) {
  for (const auto& [spec, target] : {std::pair<const std::string*, bool>{&options.tokenizer, false},
                                     {&options.target_tokenizer, true}}) {
    if (spec->empty()) continue;
    Result<TokenizerSpec> tokenizer = read_tokenizer(*spec);
    if (!tokenizer.ok()) return tokenizer.status();
    if (target) writer.set_target_tokenizer(std::move(tokenizer).value());
    else writer.set_tokenizer(std::move(tokenizer).value());
  }
  return Status();
}

// The graph, weights, tokenizers and metadata in `writer`, unused tensors warned about.
Status build_model(const ConvertOptions& options, const Preset& preset, const nlohmann::json& config,
                   ModelWriter& writer, Converted* converted) {
  Result<std::vector<Checkpoint>> checkpoints = read_checkpoints(options);
  if (!checkpoints.ok()) return checkpoints.status();
  WeightSource weights(std::move(checkpoints).value());
  report_building(options, preset, weights);
  FOCAL_RETURN_IF_ERROR(configure_writer(options, writer));
  GraphBuilder builder(writer, weights);
  FOCAL_RETURN_IF_ERROR(build(preset, config, options, builder));
  FOCAL_RETURN_IF_ERROR(check_unused(weights, options.strict, &converted->warnings));
  FOCAL_RETURN_IF_ERROR(add_tokenizers(options, writer));
  std::string architecture = preset.name;
  if (!options.spec.empty()) {
    FOCAL_ASSIGN_OR_RETURN(architecture, config_string(config, "name", "spec"));
  }
  writer.set_metadata(architecture, "focal convert", weights.describe_sources());
  return Status();
}

// One copy of the weights is resident at any time: the writer's constants move into
// the draft, the draft's pages are released as they are copied into the final file,
// and the final file's as they are copied into converted.bytes. The draft names the
// model's inputs and outputs as the engine sees them, and holds the stored weights the
// expected outputs are computed from.
Result<FileBuffer> write_with_self_test(const ConvertOptions& options, ModelWriter& writer,
                                        Converted* converted) {
  std::optional<FileBuffer> draft;
  if (options.self_test) {
    Result<FileBuffer> written = writer.finish_moving_constants();
    if (!written.ok()) return written.status();
    draft.emplace(std::move(written.value()));
    LoadOptions draft_load;
    draft_load.verify_checksum = false;  // just written here; the final file is checked in full
    Result<Model> model = Model::from_bytes(draft->data(), draft->size(), draft_load);
    if (!model.ok()) return model.status();
    FOCAL_RETURN_IF_ERROR(add_self_test(options, model.value(), writer, converted));
  }
  report(options, "planning memory and writing");
  return writer.finish_moving_constants(draft ? &*draft : nullptr);
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

}  // namespace

Result<Converted> convert_checkpoint(const ConvertOptions& options) {
  FOCAL_RETURN_IF_ERROR(check_options(options));
  const Preset spec_preset{"spec", "a declarative model spec", build_from_spec};
  const Preset& preset = options.spec.empty() ? *find_preset(options.preset) : spec_preset;
  Result<nlohmann::json> config = read_config(options.spec.empty() ? options.config : options.spec);
  if (!config.ok()) return config.status();
  ModelWriter writer;
  Converted converted;
  FOCAL_RETURN_IF_ERROR(build_model(options, preset, config.value(), writer, &converted));
  Result<FileBuffer> file = write_with_self_test(options, writer, &converted);
  if (!file.ok()) return file.status();
  report(options, "verifying the written model");
  FOCAL_RETURN_IF_ERROR(load_and_self_test(file.value(), &converted));
  converted.bytes = take_bytes(file.value());
  report_self_test(options, converted);
  return converted;
}

}  // namespace convert
}  // namespace focal
