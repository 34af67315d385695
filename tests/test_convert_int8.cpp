// `focal convert --dtype int8 --activations int8` (convert.h, int8_accuracy.h): each dense
// layer's error is measured before the file is written, printed as a table and JSON,
// and the layers --keep-f32 names (or auto finds above its threshold) stay weight-only
// int8. Checked: the measured error is what the engine's int8 kernels do to that layer,
// the kept layers are stored weight-only and the rest in the int8-dot layout, the
// stored self-test is the quantized model's own, BERT-style classifiers keep their
// argmax on every PyTorch case, and the option errors say what to do.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "convert.h"
#include "focal_generated.h"
#include "reference/self_test_cases.h"
#include "support/model_checks.h"

using namespace focal;
using nlohmann::json;
using testing::ModelCase;

namespace {

convert::ConvertOptions int8_options(const ModelCase& c, const std::string& keep) {
  convert::ConvertOptions o;
  o.preset = c.spec.at("preset").get<std::string>();
  o.weights = {c.dir + "/" + c.spec.at("weights").get<std::string>()};
  o.config = c.dir + "/config.json";
  o.max_batch = 4;
  o.max_seq = 16;
  o.dtype = DType::kI8;
  o.int8_activations = true;
  o.keep_f32 = keep;
  return o;
}

convert::Converted convert_ok(const convert::ConvertOptions& o) {
  auto result = convert::convert_checkpoint(o);
  REQUIRE_MESSAGE(result.ok(), result.status().message());
  return std::move(result).value();
}

std::string error_of(const convert::ConvertOptions& o) {
  auto result = convert::convert_checkpoint(o);
  REQUIRE_FALSE(result.ok());
  return result.status().message();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The stored layout of every packed dense weight, by name.
std::map<std::string, fb::TensorLayout> dense_layouts(const std::vector<uint8_t>& bytes) {
  testing::AlignedBuffer file(bytes);
  auto model = Model::from_bytes(file.data(), bytes.size());
  REQUIRE_MESSAGE(model.ok(), model.status().message());
  std::map<std::string, fb::TensorLayout> layouts;
  for (const fb::Tensor* t : *model->schema().tensors()) {
    if (t->layout() != fb::TensorLayout_RowMajor) layouts[t->name()->str()] = t->layout();
  }
  return layouts;
}

size_t argmax(const float* row, size_t n) {
  size_t best = 0;
  for (size_t i = 1; i < n; ++i) best = row[i] > row[best] ? i : best;
  return best;
}

// A one-layer spec: y = x W^T (x [batch, seq, 48], W [40, 48] from w.npy).
constexpr int kIn = 48, kOut = 40, kRows = 8;

void write_npy(const std::string& path, const std::vector<float>& values, int rows, int cols) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  const uint16_t length = static_cast<uint16_t>(header.size());
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.write(reinterpret_cast<const char*>(&length), 2);  // little-endian hosts only
  out << header;
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
}

struct OneLayer {
  std::string dir;
  std::vector<float> x;  // [kRows, kIn]: normal values and one outlier channel, as activations have
};

OneLayer write_one_layer() {
  char dir_template[] = "/tmp/focal_int8_layer_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  OneLayer layer{dir_template, {}};
  std::mt19937 random(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> w(kOut * kIn);
  for (float& v : w) v = 0.2f * normal(random);
  write_npy(layer.dir + "/w.npy", w, kOut, kIn);
  for (int i = 0; i < kRows * kIn; ++i) layer.x.push_back(i % kIn == 5 ? 12.0f * normal(random) : normal(random));
  const json spec = {{"name", "one-dense"},
                     {"symbols", {{"seq", 16}}},
                     {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"batch", "seq", kIn}}}}},
                     {"layers", {{{"op", "dense"}, {"name", "proj"}, {"input", "x"}, {"weight", "w"}}}},
                     {"outputs", {"proj"}}};
  std::ofstream(layer.dir + "/spec.json") << spec.dump();
  mkdir((layer.dir + "/calibration").c_str(), 0700);
  json rows = json::array();
  for (int r = 0; r < kRows; ++r) rows.push_back(std::vector<float>(layer.x.begin() + r * kIn, layer.x.begin() + (r + 1) * kIn));
  std::ofstream(layer.dir + "/calibration/case.json") << json{{"x", {rows}}}.dump();
  return layer;
}

// The engine's output of the converted one-layer model on `x`.
std::vector<float> run_layer(const std::vector<uint8_t>& bytes, const std::vector<float>& x) {
  auto loaded = testing::load_model_bytes(bytes);
  Session& s = *loaded->session;
  REQUIRE(s.set_input(0, Shape{3, {1, kRows, kIn}}, x.data(), x.size() * 4).ok());
  REQUIRE(s.run().ok());
  const float* y = static_cast<const float*>(s.output(0).data);
  return std::vector<float>(y, y + kRows * kOut);
}

// The expected outputs of the model's stored self-test, flattened.
std::vector<double> stored_expected(const std::vector<uint8_t>& bytes) {
  testing::AlignedBuffer file(bytes);
  auto model = Model::from_bytes(file.data(), bytes.size());
  REQUIRE(model.ok());
  const auto cases = reference::stored_self_tests(model.value());
  REQUIRE(cases.size() == 1);
  return cases[0].expected.at(0).values;
}

template <class A, class B>
double relative_rms(const std::vector<A>& got, const std::vector<B>& want) {
  double error = 0.0, norm = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    error += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    norm += double(want[i]) * want[i];
  }
  return std::sqrt(error / norm);
}

}  // namespace

TEST_CASE("int8 activations: the measured error of a layer is what the engine's int8 kernels do to it") {
  const OneLayer layer = write_one_layer();
  convert::ConvertOptions o;
  o.spec = layer.dir + "/spec.json";
  o.weights = {layer.dir + "/w.npy"};
  o.dtype = DType::kI8;
  const convert::Converted weight_only_file = convert_ok(o);
  const std::vector<float> weight_only = run_layer(weight_only_file.bytes, layer.x);
  o.int8_activations = true;
  o.calibration_dir = layer.dir + "/calibration";
  const convert::Converted converted = convert_ok(o);
  const std::vector<float> int8 = run_layer(converted.bytes, layer.x);
  REQUIRE(converted.accuracy.layers.size() == 1);
  const convert::LayerAccuracy& measured = converted.accuracy.layers[0];
  CHECK(measured.weight == "w");
  CHECK(measured.rows == kRows);
  CHECK(contains(converted.accuracy.inputs, "1 calibration cases"));
  // The outlier channel makes each row's scale coarse: a real, visible error.
  const double engine = relative_rms(int8, weight_only);
  MESSAGE("relative RMS error: measured ", measured.relative_rms, ", engine ", engine);
  CHECK(engine > 1e-2);
  CHECK(std::fabs(measured.relative_rms - engine) <= 1e-4 * engine);
  // The stored self-test holds the int8-activation model's outputs, not the weight-only
  // model's: on the same generated inputs (uniform, no outlier) they differ by a few
  // thousandths, and the engine passes it.
  CHECK(converted.self_tests == 1);
  CHECK(converted.self_test_worst_ratio <= 1.0f);
  const double stored_difference = relative_rms(stored_expected(converted.bytes), stored_expected(weight_only_file.bytes));
  MESSAGE("stored self-test outputs, int8 against weight-only: relative RMS ", stored_difference);
  CHECK(stored_difference > 1e-3);
  for (const char* f : {"/w.npy", "/spec.json", "/calibration/case.json", "/calibration", ""}) {
    std::remove((layer.dir + f).c_str());
  }
}

TEST_CASE("int8 activations: the table and JSON list every dense layer; kept ones are stored weight-only") {
  const ModelCase c = testing::model_case("bert", "bert_l2_d32_h4");
  const std::string kept_by_name = "encoder.layer.1.output.dense.weight";
  convert::ConvertOptions o = int8_options(c, "auto," + kept_by_name);
  o.keep_threshold = 0.006;
  const convert::Converted converted = convert_ok(o);
  const convert::AccuracyReport& report = converted.accuracy;
  const std::string table = convert::accuracy_table(report);
  MESSAGE(table);
  const json j = convert::accuracy_json(report);
  const auto layouts = dense_layouts(converted.bytes);
  // 2 layers x (q, k, v, o, FFN up, FFN down) and the pooler.
  REQUIRE(report.layers.size() == 13);
  REQUIRE(j.at("layers").size() == report.layers.size());
  CHECK(j.at("threshold").get<double>() == 0.006);
  int kept = 0, above = 0;
  for (size_t i = 0; i < report.layers.size(); ++i) {
    const convert::LayerAccuracy& layer = report.layers[i];
    const json& row = j.at("layers")[i];
    CHECK(row.at("weight") == layer.weight);
    CHECK(row.at("relative_rms_error").get<double>() == layer.relative_rms);
    CHECK(contains(table, "  " + layer.weight + " "));
    CHECK(layer.rows > 0);
    CHECK(layer.cosine <= 1.0 + 1e-12);
    CHECK(layer.cosine > 0.99);
    const bool should_keep = layer.relative_rms > 0.006 || layer.weight == kept_by_name;
    CHECK(layer.kept == should_keep);
    CHECK(row.at("activations") == (should_keep ? "f32" : "int8"));
    if (layer.weight == kept_by_name) CHECK(layer.reason == "named");
    kept += layer.kept ? 1 : 0;
    above += layer.relative_rms > 0.006 ? 1 : 0;
    REQUIRE(layouts.count(layer.weight) == 1);
    CHECK(layouts.at(layer.weight) == (layer.kept ? fb::TensorLayout_DensePacked : fb::TensorLayout_DenseInt8Dot));
  }
  CHECK(above > 0);  // the threshold is low enough to keep some by their error
  CHECK(kept < static_cast<int>(report.layers.size()));
  CHECK(j.at("kept").get<int>() == kept);
  CHECK(contains(table, std::to_string(kept) + " of 13 layers kept in weight-only int8 (auto: relative RMS error above 0.006)"));
  CHECK(contains(table, "weight-only int8 (named)"));
  CHECK(contains(table, "int8 x int8"));
}

TEST_CASE("--keep-f32 NAMES: an unknown name is an error listing the valid ones; option misuse says what to add") {
  const ModelCase c = testing::model_case("bert", "bert_l2_d32_h4");
  const std::string unknown = error_of(int8_options(c, "encoder.layer.0.attention.self.query.weight,pooler.dense.wieght"));
  MESSAGE(unknown);
  CHECK(contains(unknown, "--keep-f32: 'pooler.dense.wieght' is not one of the 13 dense weights (all listed above); nearest: "));
  CHECK(contains(unknown, "nearest: pooler.dense.weight, encoder.layer.0.output.dense.weight"));
  // Every valid name goes to the progress output, as the message says.
  std::string progress;
  convert::ConvertOptions listed = int8_options(c, "pooler.dense.wieght");
  listed.progress = [&progress](const std::string& line) { progress += line + "\n"; };
  (void)error_of(listed);
  CHECK(contains(progress, "the dense weights --keep-f32 can name:\n  encoder.layer.0.attention.self.key.weight\n"));
  CHECK(contains(progress, "\n  encoder.layer.1.intermediate.dense.weight\n"));
  CHECK(contains(progress, "\n  pooler.dense.weight"));

  convert::ConvertOptions o = int8_options(c, "");
  o.dtype = DType::kF16;
  CHECK(contains(error_of(o), "--activations int8 multiplies int8 weights by int8 activations: add --dtype int8"));
  o = int8_options(c, "auto");
  o.int8_activations = false;
  CHECK(contains(error_of(o), "--keep-f32 chooses layers for int8 activations: add --dtype int8 --activations int8"));
  o = int8_options(c, "pooler.dense.weight");
  o.keep_threshold = 0.05;
  CHECK(contains(error_of(o), "--keep-f32-threshold is the bound of --keep-f32 auto"));
  o = int8_options(c, "");
  o.calibration_dir = c.dir;  // case.json there is no calibration case
  CHECK(contains(error_of(o), "has no 'input_ids' (give every input: input_ids, attention_mask, token_type_ids)"));
}

TEST_CASE("int8 activations: the self-test is the quantized model's own; every BERT-style classifier keeps its argmax") {
  std::vector<ModelCase> cases = testing::cases_of("bert");
  for (const ModelCase& c : testing::cases_of("torch-encoder")) cases.push_back(c);
  int rows_checked = 0;
  for (const ModelCase& c : cases) {
    const auto& outputs = c.spec.at("outputs");
    if (std::find(outputs.begin(), outputs.end(), "logits") == outputs.end()) continue;
    const convert::Converted converted = convert_ok(int8_options(c, "auto"));
    CHECK(converted.self_tests == 1);
    CHECK(converted.self_test_worst_ratio <= 1.0f);
    auto loaded = testing::load_model_bytes(converted.bytes);
    Session& s = *loaded->session;
    for (const auto& name : c.spec.at("inputs")) {
      testing::set_input(s, name.get<std::string>(), c.array("inputs/" + name.get<std::string>()));
    }
    REQUIRE(s.run().ok());
    const auto want = c.array("expected/logits");
    const std::vector<float> expected = want.to_f32();
    const size_t labels = static_cast<size_t>(want.shape.back()), rows = expected.size() / labels;
    const float* got = static_cast<const float*>(s.output(s.find_output("logits")).data);
    for (size_t r = 0; r < rows; ++r) {
      CHECK_MESSAGE(argmax(got + r * labels, labels) == argmax(&expected[r * labels], labels), c.name(), " row ", r);
    }
    rows_checked += static_cast<int>(rows);
    MESSAGE(c.name(), ": ", converted.accuracy.kept(), " of ", converted.accuracy.layers.size(),
            " layers kept, self-test worst ", converted.self_test_worst_ratio, " of its tolerance");
  }
  CHECK(rows_checked >= 8);
}
