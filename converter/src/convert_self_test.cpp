#include "convert_self_test.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "convert_accuracy.h"
#include "focal/gemm.h"
#include "focal/internal/checksum.h"
#include "focal/internal/graph.h"
#include "focal/model.h"
#include "focal/self_test.h"
#include "focal/session.h"
#include "focal_generated.h"
#include "readers/npy.h"
#include "reference/generated_inputs.h"
#include "reference/self_test_cases.h"

namespace focal {
namespace convert {
namespace {

size_t align_up_64(size_t n) { return (n + 63) / 64 * 64; }

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
  const std::vector<float> reals = array.to_f32();
  for (size_t i = 0; i < reals.size(); ++i) {
    // A NaN compares false against any tolerance: it would fail the self-test while the
    // report said "worst error 0". Refused here, naming where it is.
    if (!std::isfinite(reals[i])) {
      return Status::error(StatusCode::kInvalidArgument, "'%s': element %zu is %g; self-test values must be finite",
                           path.c_str(), i, static_cast<double>(reals[i]));
    }
    value.values.push_back(reals[i]);
  }
  return value;
}

// The value's bytes in `dtype` (f32, or i32 for ids and masks), row-major.
std::vector<uint8_t> value_bytes(DType dtype, const reference::Value& value) {
  std::vector<uint8_t> bytes(value.values.size() * 4);
  for (size_t i = 0; i < value.values.size(); ++i) {
    const int32_t integer = static_cast<int32_t>(value.values[i]);
    const float real = static_cast<float>(value.values[i]);
    std::memcpy(bytes.data() + i * 4, dtype == DType::kI32 ? static_cast<const void*>(&integer) : &real, 4);
  }
  return bytes;
}

// The value for the writer's tensor of the same name.
TensorValueSpec value_spec(const Model& graph, const ModelWriter& writer, const reference::Value& value) {
  const TensorInfo info = graph.tensor(value.tensor);
  TensorValueSpec spec{writer.find_tensor(info.name), {}, value_bytes(info.dtype, value)};
  for (int i = 0; i < value.shape.rank; ++i) spec.shape.push_back(value.shape.dims[i]);
  return spec;
}

// The self-test's inputs: DIR/inputs/<input>.npy for every input (an optional one may be
// left out: the run fills it), or generated ones.
Result<std::vector<reference::Value>> self_test_inputs(const ConvertOptions& options, const Model& graph) {
  if (options.self_test_dir.empty()) return reference::generate_inputs(graph);
  std::vector<reference::Value> inputs;
  for (int i = 0; i < graph.input_count(); ++i) {
    const TensorInfo info = graph.tensor(graph.input_tensor(i));
    const std::string path = options.self_test_dir + "/inputs/" + info.name + ".npy";
    if (info.absent_fill >= 0 && access(path.c_str(), F_OK) != 0) continue;  // not opened: it may be a FIFO
    Result<reference::Value> v = read_value(graph.input_tensor(i), info.dtype, path);
    if (!v.ok()) return v.status();
    inputs.push_back(std::move(v).value());
  }
  return inputs;
}

// DIR/expected/<output>.npy for the outputs that have one (none without a DIR).
Result<std::vector<reference::Value>> expected_from_files(const ConvertOptions& options, const Model& graph) {
  std::vector<reference::Value> expected;
  for (int i = 0; i < graph.output_count() && !options.self_test_dir.empty(); ++i) {
    const TensorInfo info = graph.tensor(graph.output_tensor(i));
    const std::string path = options.self_test_dir + "/expected/" + info.name + ".npy";
    if (::access(path.c_str(), F_OK) != 0) continue;  // outputs without an expected file are not checked
    Result<reference::Value> v = read_value(graph.output_tensor(i), info.dtype, path);
    if (!v.ok()) return v.status();
    expected.push_back(std::move(v).value());
  }
  return expected;
}

// Every f32 output for these inputs, computed in double by the reference evaluator.
// int8_activations false: int8-dot weights multiply the f32 rows (weight-only int8).
Result<std::vector<reference::Value>> computed_outputs(const Model& graph, const std::vector<reference::Value>& inputs,
                                                       bool int8_activations = true) {
  Result<reference::Evaluator> evaluator = reference::Evaluator::create(graph);
  if (!evaluator.ok()) return evaluator.status();
  evaluator->set_int8_activations(int8_activations);
  Result<std::vector<reference::Value>> outputs = reference::evaluate_outputs(evaluator.value(), inputs);
  if (!outputs.ok()) {
    return Status::error(outputs.status().code(), "self-test: the reference evaluator refused the inputs: %s",
                         outputs.status().message());
  }
  return outputs;
}

std::string describe_inputs(const Model& graph, const std::vector<reference::Value>& inputs) {
  std::string text;
  for (const reference::Value& v : inputs) {
    text += (text.empty() ? "" : ", ") + std::string(graph.tensor(v.tensor).name) + " [";
    for (int i = 0; i < v.shape.rank; ++i) text += (i ? ", " : "") + std::to_string(v.shape.dims[i]);
    text += "]";
  }
  return text;
}

// The shape `tensor` has after a run on `inputs`, as the evaluator gives it: its symbols
// bound by the inputs' dims, the others at their planned maxima (a fresh evaluator's).
Shape shape_after_run(const Model& graph, int tensor, const std::vector<reference::Value>& inputs) {
  std::vector<int64_t> symbols(static_cast<size_t>(graph.symbol_count()));
  for (int s = 0; s < graph.symbol_count(); ++s) symbols[static_cast<size_t>(s)] = graph.symbol(s).max;
  for (const reference::Value& v : inputs) {
    const TensorInfo info = graph.tensor(v.tensor);
    for (int i = 0; i < v.shape.rank; ++i) {
      if (info.dim_symbols[i] >= 0) symbols[static_cast<size_t>(info.dim_symbols[i])] = v.shape.dims[i];
    }
  }
  const TensorInfo info = graph.tensor(tensor);
  Shape shape = info.shape;
  for (int i = 0; i < shape.rank; ++i) {
    if (info.dim_symbols[i] >= 0) shape.dims[i] = symbols[static_cast<size_t>(info.dim_symbols[i])];
  }
  return shape;
}

// Zeros in the shapes of the outputs the evaluator computes: every f32 output, in order.
std::vector<reference::Value> output_places(const Model& graph, const std::vector<reference::Value>& inputs) {
  std::vector<reference::Value> places;
  for (int i = 0; i < graph.output_count(); ++i) {
    reference::Value place;
    place.tensor = graph.output_tensor(i);
    if (graph.tensor(place.tensor).dtype != DType::kF32) continue;
    place.shape = shape_after_run(graph, place.tensor, inputs);
    place.values.assign(static_cast<size_t>(place.shape.element_count()), 0.0);
    places.push_back(std::move(place));
  }
  return places;
}

Result<SelfTestPlan> plan_from_graph(const ConvertOptions& options, const Model& graph, ModelWriter& writer) {
  Result<std::vector<reference::Value>> inputs = self_test_inputs(options, graph);
  if (!inputs.ok()) return inputs.status();
  Result<std::vector<reference::Value>> expected = expected_from_files(options, graph);
  if (!expected.ok()) return expected.status();
  SelfTestPlan plan;
  plan.stored = true;
  plan.computed = expected->empty();
  if (plan.computed) expected.value() = output_places(graph, inputs.value());
  if (expected->empty()) return Status::error(StatusCode::kInvalidArgument, "self-test: the model has no f32 output");
  SelfTestSpec test;
  const float default_tolerance =
      plan.computed ? computed_self_test_tolerance(options.dtype, options.int8_activations, options.kv_dtype) : 1e-4f;
  test.atol = options.self_test_atol > 0.0f ? options.self_test_atol : default_tolerance;
  test.rtol = options.self_test_rtol > 0.0f ? options.self_test_rtol : default_tolerance;
  for (const reference::Value& v : inputs.value()) test.inputs.push_back(value_spec(graph, writer, v));
  for (const reference::Value& v : expected.value()) test.expected_outputs.push_back(value_spec(graph, writer, v));
  writer.add_self_test(std::move(test));
  plan.inputs = std::move(inputs).value();
  return plan;
}

bool same_shape(const fb::TensorValue& place, const Shape& shape) {
  if (place.shape() == nullptr || static_cast<int>(place.shape()->size()) != shape.rank) return false;
  for (int i = 0; i < shape.rank; ++i) {
    if (place.shape()->Get(static_cast<uint32_t>(i)) != shape.dims[i]) return false;
  }
  return true;
}

// The computed outputs into the places the write kept for them (the last case's).
Status write_expected(const Model& model, const std::vector<reference::Value>& outputs, FileBuffer& file) {
  const auto* cases = model.schema().self_tests();
  const auto* places = cases->Get(cases->size() - 1)->expected_outputs();
  if (places->size() != outputs.size()) {
    return Status::error(StatusCode::kInvalidModel, "self-test: %zu outputs computed for %u places",
                         outputs.size(), places->size());
  }
  const size_t data_offset = static_cast<size_t>(model.data_segment() - file.data());
  for (uint32_t v = 0; v < places->size(); ++v) {
    const reference::Value& output = outputs[v];
    const std::vector<uint8_t> bytes = value_bytes(model.tensor(output.tensor).dtype, output);
    const fb::TensorValue& place = *places->Get(v);
    if (!same_shape(place, output.shape) || place.data()->size() != bytes.size()) {
      return Status::error(StatusCode::kInvalidModel, "self-test: output '%s' was computed in another shape than planned",
                           model.tensor(output.tensor).name);
    }
    std::memcpy(file.data() + data_offset + place.data()->offset(), bytes.data(), bytes.size());
  }
  return Status();
}

// The largest |a - b| / (1 + |b|) over every element of every output.
double largest_change(const std::vector<reference::Value>& a, const std::vector<reference::Value>& b) {
  double largest = 0.0;
  for (size_t v = 0; v < a.size() && v < b.size(); ++v) {
    for (size_t i = 0; i < a[v].values.size() && i < b[v].values.size(); ++i) {
      largest = std::fmax(largest, std::fabs(a[v].values[i] - b[v].values[i]) / (1.0 + std::fabs(b[v].values[i])));
    }
  }
  return largest;
}

// Int8 activations round each row to whole steps, so a value within an f32 rounding of a
// half step rounds one way in the engine's f32 rows and the other in the reference's
// double ones; in a deep model each such difference moves the next layers' rows, whose
// rounding then differs more often, until the two runs differ by about as much as int8
// activations change the outputs at all. The bound (atol = rtol) is therefore the
// larger of kInt8ActivationTolerance and twice the largest change int8 activations make
// to an output on these inputs (`outputs` against the same weights on f32 rows),
// written over the one planned. Unchanged when the tolerance was given.
Status widen_int8_tolerance(const ConvertOptions& options, const Model& model,
                            const std::vector<reference::Value>& inputs, const std::vector<reference::Value>& outputs,
                            FileBuffer& file) {
  const bool quantized_rows = options.int8_activations || options.dtype == DType::kI4;
  if (!quantized_rows || options.self_test_atol > 0.0f || options.self_test_rtol > 0.0f) return Status();
  Result<std::vector<reference::Value>> f32_rows = computed_outputs(model, inputs, /*int8_activations=*/false);
  if (!f32_rows.ok()) return f32_rows.status();
  const double change = largest_change(outputs, f32_rows.value());
  const float tolerance = static_cast<float>(std::fmax(kInt8ActivationTolerance, 2.0 * change));
  const auto* cases = model.schema().self_tests();
  const fb::SelfTestCase* last = cases->Get(cases->size() - 1);
  for (const flatbuffers::voffset_t field : {fb::SelfTestCase::VT_ATOL, fb::SelfTestCase::VT_RTOL}) {
    // Generated tables are flatbuffers::Table privately; the bytes are the same.
    const uint8_t* at = reinterpret_cast<const flatbuffers::Table*>(last)->GetAddressOf(field);
    if (at == nullptr) return Status::error(StatusCode::kInvalidModel, "self-test: no stored tolerance to widen");
    std::memcpy(file.data() + (at - file.data()), &tolerance, sizeof(tolerance));  // little-endian, as FlatBuffers
  }
  char line[200];
  (void)std::snprintf(line, sizeof(line),
                      "self-test tolerance %.3g: int8 activations change an output by up to %.3g of (1 + |value|) "
                      "on these inputs",
                      static_cast<double>(tolerance), change);
  report(options, line);
  return Status();
}

void stamp_checksum(FileBuffer& file) {
  const fb::Model* root = fb::GetSizePrefixedModel(file.data());
  const size_t at = static_cast<size_t>(reinterpret_cast<const uint8_t*>(root->checksum()) - file.data());
  const uint32_t crc = crc32_skipping(file.data(), file.size(), at);
  std::memcpy(file.data() + at, &crc, sizeof(crc));  // little-endian, as FlatBuffers
}

// An int4 weight's bytes as an all-zero matrix packs them: nibbles q = 0 (stored 8) and
// scales 0, which the loader's check of the padding past the last output accepts (zero
// bytes read as q = -8 there, and every layer whose outputs were not a multiple of 32,
// a classifier head or a 50257 vocabulary, was refused). Packed one 32-output panel at a
// time from one panel of zeros: panel p sits at p times the bytes of one panel.
Status fill_zero_int4(const fb::Tensor& t, uint8_t* data, size_t data_bytes) {
  constexpr size_t kPanel = 32;  // outputs per panel (focal/gemm.h's int4 layout)
  if (t.shape() == nullptr || t.shape()->size() != 2 || t.shape()->Get(0) < 1 || t.shape()->Get(1) < 1) return Status();
  const size_t out = static_cast<size_t>(t.shape()->Get(0)), in = static_cast<size_t>(t.shape()->Get(1));
  const size_t group = static_cast<size_t>(t.group_size());
  const size_t panel_bytes = packed_dense_weights_int4_bytes(kPanel, in, group);
  // Sizes the loader will refuse (it names them) are left as they are.
  if (panel_bytes == 0 || t.data()->size() != packed_dense_weights_int4_bytes(out, in, group) ||
      t.data()->offset() > data_bytes || t.data()->size() > data_bytes - t.data()->offset()) {
    return Status();
  }
  const std::vector<float> zeros(kPanel * in, 0.0f);
  uint8_t* packed = data + t.data()->offset();
  for (size_t first = 0; first < out; first += kPanel, packed += panel_bytes) {
    const size_t rows = out - first < kPanel ? out - first : kPanel;
    FOCAL_RETURN_IF_ERROR(pack_dense_weights_int4(zeros.data(), rows, in, group, packed, panel_bytes).status());
  }
  return Status();
}

}  // namespace

void report(const ConvertOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

// The graph's facts come from the writer's header over zero-filled data: anonymous pages
// that are never written, so the weights' places cost no memory (but for int4 weights,
// an eighth of their f32 size, written as above).
Result<SelfTestPlan> plan_self_test(const ConvertOptions& options, ModelWriter& writer) {
  if (!options.self_test) return SelfTestPlan();
  size_t file_size = 0;
  Result<std::vector<uint8_t>> header = writer.header(&file_size);
  if (!header.ok()) return header.status();
  Result<FileBuffer> skeleton = FileBuffer::allocate(file_size);
  if (!skeleton.ok()) return skeleton.status();
  std::memcpy(skeleton->data(), header->data(), header->size());
  const size_t data_offset = static_cast<size_t>(data_segment_offset(header->size()));
  for (const fb::Tensor* t : *fb::GetSizePrefixedModel(skeleton->data())->tensors()) {
    if (t->layout() == fb::TensorLayout_DenseInt4 && t->data() != nullptr) {
      FOCAL_RETURN_IF_ERROR(fill_zero_int4(*t, skeleton->data() + data_offset, file_size - data_offset));
    }
  }
  LoadOptions load;
  load.verify_checksum = false;  // stamped by the write; the finished file is checked in full
  Result<Model> graph = Model::from_bytes(skeleton->data(), skeleton->size(), load);
  if (!graph.ok()) return graph.status();
  return plan_from_graph(options, graph.value(), writer);
}

Status complete_self_test(const ConvertOptions& options, const SelfTestPlan& plan, FileBuffer& file) {
  if (!plan.computed) return Status();
  LoadOptions load;
  load.verify_checksum = false;  // stamped again below, once the expected outputs are in
  Result<Model> model = Model::from_bytes(file.data(), file.size(), load);
  if (!model.ok()) return model.status();
  report(options, "self-test: computing expected outputs in double precision (reference evaluator) for " +
                      std::string(options.self_test_dir.empty() ? "generated" : "given") +
                      " inputs: " + describe_inputs(model.value(), plan.inputs));
  Result<std::vector<reference::Value>> outputs = computed_outputs(model.value(), plan.inputs);
  if (!outputs.ok()) return outputs.status();
  FOCAL_RETURN_IF_ERROR(write_expected(model.value(), outputs.value(), file));
  FOCAL_RETURN_IF_ERROR(widen_int8_tolerance(options, model.value(), plan.inputs, outputs.value(), file));
  stamp_checksum(file);
  return Status();
}

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

}  // namespace convert
}  // namespace focal
