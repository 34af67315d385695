// The RNN families written as declarative specs (tests/models/specs/, the files
// converter/README.md quotes) instead of presets: each spec converts the same PyTorch
// reference cases (tests/models/make_rnn_reference.py) and must match PyTorch as the
// presets do (support/rnn_checks.h: teacher-forced logits and alignments, greedy tokens
// exactly, beam search), and the seq2seq specs must give the rnn-seq2seq preset's own
// outputs. Errors of staged specs name the stage and the layer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "convert.h"
#include "support/model_checks.h"
#include "support/rnn_checks.h"

using namespace focal;
using testing::ModelCase;

namespace {

const std::string kSpecDir = FOCAL_SPEC_DIR;

bool exists(const std::string& path) { return std::ifstream(path).good(); }

// strict: every checkpoint tensor must be taken by some layer.
Result<convert::Converted> convert_spec(const std::string& spec, const std::string& weights, bool strict = true) {
  convert::ConvertOptions options;
  options.spec = spec;
  options.weights = {weights};
  options.max_batch = 4;
  options.strict = strict;
  return convert::convert_checkpoint(options);
}

std::unique_ptr<testing::LoadedCase> load_spec(const std::string& spec, const std::string& weights) {
  auto converted = convert_spec(spec, weights);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  return testing::load_model_bytes(converted->bytes);
}

std::unique_ptr<testing::LoadedCase> load_preset(const ModelCase& c) {
  convert::ConvertOptions options;
  options.preset = "rnn-seq2seq";
  options.weights = {c.dir + "/" + c.spec.at("weights").get<std::string>()};
  options.config = c.dir + "/config.json";
  options.max_batch = 4;
  auto converted = convert::convert_checkpoint(options);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  return testing::load_model_bytes(converted->bytes);
}

// Logits then attention of every step, the batch encoded once and each step fed
// PyTorch's greedy tokens (as support/rnn_checks.cpp does).
std::vector<float> decoded(const ModelCase& c, Session& s) {
  const auto greedy = c.array("expected/greedy_ids");
  const std::vector<float> ids = greedy.to_f32();
  const int64_t batch = greedy.shape[0], steps = greedy.shape[1];
  s.reset_state();
  testing::set_seq2seq_source(s, c);
  REQUIRE(s.run_stage(s.find_stage("encode")).ok());
  std::vector<int32_t> prev(static_cast<size_t>(batch), c.spec.value("bos_id", 1));
  std::vector<float> all;
  for (int64_t t = 0; t < steps; ++t) {
    Shape shape;
    shape.rank = 1;
    shape.dims[0] = batch;
    REQUIRE(s.set_input(testing::seq2seq_input(s, "decoder_input_ids"), shape, prev.data(), prev.size() * 4).ok());
    REQUIRE(s.run_stage(s.find_stage("decode")).ok());
    for (const char* name : {"logits", "attention"}) {
      const TensorView out = s.output(s.find_output(name));
      const float* values = static_cast<const float*>(out.data);
      all.insert(all.end(), values, values + out.shape.element_count());
    }
    for (int64_t b = 0; b < batch; ++b) prev[size_t(b)] = static_cast<int32_t>(ids[size_t(b * steps + t)]);
  }
  return all;
}

double worst_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(double(a[i]) - b[i]) / (std::fabs(b[i]) + 1.0));
  }
  return worst;
}

// The class count of a make_rnn_reference.py classifier case (their config.json states
// it); 0 for the cases of other scripts, whose models the specs do not describe.
int64_t num_classes(const ModelCase& c) {
  std::ifstream in(c.dir + "/config.json");
  return nlohmann::json::parse(in).value("num_classes", int64_t(0));
}

// A conversion of `spec` (JSON text) that must fail with `expected` in its message.
void check_refused(const nlohmann::json& spec, const std::string& weights, const std::string& expected) {
  const std::string path = std::string(std::getenv("FOCAL_MODEL_CASES")) + "/broken_staged_spec.json";
  std::ofstream(path) << spec.dump();
  auto converted = convert_spec(path, weights);
  REQUIRE(!converted.ok());
  const std::string message = converted.status().message();
  CAPTURE(message);
  CHECK(message.find(expected) != std::string::npos);
}

}  // namespace

TEST_CASE("RNN seq2seq specs (stages, states) match PyTorch and the rnn-seq2seq preset") {
  size_t converted = 0;
  for (const ModelCase& c : testing::cases_of("rnn-seq2seq")) {
    const std::string spec = kSpecDir + "/" + c.name() + ".json";
    if (!exists(spec)) continue;
    CAPTURE(c.name());
    auto from_spec = load_spec(spec, c.dir + "/" + c.spec.at("weights").get<std::string>());
    testing::check_seq2seq(c, *from_spec);
    // The same graph as the preset's: the same f32 arithmetic, so the same numbers.
    const double apart = worst_difference(decoded(c, *from_spec->session), decoded(c, *load_preset(c)->session));
    MESSAGE(c.name(), ": spec against preset, worst difference ", apart);
    CHECK(apart <= 1e-6);
    ++converted;
  }
  CHECK(converted >= 5);
}

// The tutorials' seq2seq models (tests/models/make_seq2seq_reference.py): the
// Encoder/AttentionDecoder one (a concat score: Linear([s; h]) -> 1 without and with tanh,
// a zero cell every step) and 2-layer GRU Luong models in the chatbot tutorial's naming.
TEST_CASE("specs of the tutorials' seq2seq models (the seed's, 2-layer GRU Luong) match PyTorch") {
  size_t converted = 0;
  for (const ModelCase& c : testing::cases_of("rnn-seq2seq-modules")) {
    const std::string spec = kSpecDir + "/" + c.name() + ".json";
    if (!exists(spec)) continue;
    CAPTURE(c.name());
    // Not strict: a score's term that is the same for every source position of a row
    // (the general score's s . b, Va's bias) is removed exactly by the
    // softmax, so the specs leave those biases out (a warning names them).
    auto result = convert_spec(spec, c.dir + "/weights.pt", false);
    REQUIRE_MESSAGE(result.ok(), result.status().message());
    for (const std::string& warning : result->warnings) {
      CAPTURE(warning);
      CHECK((warning.find("de.attn.attn.bias") != std::string::npos ||
             warning.find("decoder.attention.bias") != std::string::npos ||
             warning.find("decoder.attention.Va.bias") != std::string::npos));
    }
    testing::check_seq2seq(c, *testing::load_model_bytes(result->bytes));
    ++converted;
  }
  CHECK(converted >= 7);
}

TEST_CASE("a 2-layer decoder from the encoder's states, each step from a zero cell (reset_cell), matches PyTorch") {
  const ModelCase c = testing::cases_of("spec-seq2seq")[0];
  const std::string spec_path = kSpecDir + "/" + c.name() + ".json";
  auto loaded = load_spec(spec_path, c.dir + "/weights.pt");
  testing::check_seq2seq(c, *loaded);
  // The control: the same decoder carrying its cell state (from the encoder's final
  // cells) gives other outputs, so the reset is what matches.
  std::ifstream in(spec_path);
  nlohmann::json carried = nlohmann::json::parse(in);
  carried["stages"][0]["layers"][1]["layers"][0]["c_n"] = "dec_c{i}";
  carried["stages"][1]["layers"][3]["layers"][0].erase("reset_cell");
  const std::string carried_path = std::string(std::getenv("FOCAL_MODEL_CASES")) + "/carried_cell_spec.json";
  std::ofstream(carried_path) << carried.dump();
  const double apart = worst_difference(decoded(c, *load_spec(carried_path, c.dir + "/weights.pt")->session),
                                        decoded(c, *loaded->session));
  MESSAGE("carried against reset cell state: worst difference ", apart);
  CHECK(apart > 1e-2);
}

TEST_CASE("attention-pooled classifier specs match PyTorch: PyTorch names and a Keras .h5") {
  size_t converted = 0, keras = 0;
  for (const ModelCase& c : testing::cases_of("rnn-classifier")) {
    if (num_classes(c) == 0) continue;
    CAPTURE(c.name());
    ++converted;
    const bool sigmoid = num_classes(c) == 1;
    const std::string spec = kSpecDir + (sigmoid ? "/rnn_classifier_sigmoid.json" : "/rnn_classifier_softmax.json");
    testing::check_rnn_classifier(c, *load_spec(spec, c.dir + "/weights.pt"));
    if (sigmoid || !exists(c.dir + "/weights_keras.h5")) continue;
    const std::string keras_spec = kSpecDir + "/keras_classifier_softmax.json";
    testing::check_rnn_classifier(c, *load_spec(keras_spec, c.dir + "/weights_keras.h5"));
    ++keras;
  }
  CHECK(converted >= 4);
  CHECK(keras >= 1);
}

TEST_CASE("staged spec errors name the stage, the layer and what to change") {
  ModelCase c;
  for (const ModelCase& each : testing::cases_of("rnn-seq2seq")) {
    if (each.name() == "rnn_bahdanau_lstm_bi_l1_e16_h16_hd24") c = each;
  }
  REQUIRE(!c.dir.empty());
  const std::string spec_path = kSpecDir + "/" + c.name() + ".json";
  REQUIRE(exists(spec_path));
  std::ifstream in(spec_path);
  const nlohmann::json good = nlohmann::json::parse(in);
  const std::string weights = c.dir + "/weights.pt";
  {  // a decode layer reading an encode activation
    nlohmann::json spec = good;
    spec["stages"][1]["layers"][1]["query"] = "enc_h";
    check_refused(spec, weights, "stage 'decode' layer 7 'context': reads 'enc_h', made in stage 'encode'");
  }
  {  // a state of the wrong width
    nlohmann::json spec = good;
    spec["state"][0]["shape"][2] = 30;
    check_refused(spec, weights, "stage 'encode' layer 1 'encoder': writes state 'memory' f32 [batch, seq, 30], "
                                 "but its output is f32 [batch, seq, 32]");
  }
  {  // a step state that is not declared
    nlohmann::json spec = good;
    spec["stages"][1]["layers"][3]["state"]["c"] = "dec_cell";
    check_refused(spec, weights, "\"state\" names 'dec_cell', which is not a declared state");
  }
  {  // both forms of a step's state
    nlohmann::json spec = good;
    spec["stages"][1]["layers"][3]["h0"] = "dec_h";
    check_refused(spec, weights, "layer 9 'decoder': give \"state\"");
  }
  {  // a GRU has no cell to reset
    nlohmann::json spec = good;
    spec["stages"][1]["layers"][3]["cell"] = "gru";
    spec["stages"][1]["layers"][3]["reset_cell"] = true;
    check_refused(spec, weights, "\"reset_cell\" is for an LSTM");
  }
  {  // an output made in the wrong stage
    nlohmann::json spec = good;
    spec["stages"][0]["outputs"] = {"logits"};
    spec["stages"][1]["outputs"] = {"attention"};
    check_refused(spec, weights, "layer 11 'logits': makes 'logits', an output of stage 'encode', in another stage");
  }
  {  // blocks of a tensor beyond it or badly written, a filled bias of the wrong shape
    nlohmann::json spec = good;
    spec["stages"][0]["layers"][4]["weight"] = "attention.key.weight[:, 0:99]";
    check_refused(spec, weights, "layer 4 'attention_keys': tensor reference 'attention.key.weight[:, 0:99]': "
                                 "range 0:99 is empty or beyond the tensor's 32");
    spec["stages"][0]["layers"][4]["weight"] = "attention.key.weight[0-3]";
    check_refused(spec, weights, "each range is begin:end");
    spec["stages"][0]["layers"][4]["weight"] = "attention.key.weight[:, :]";
    spec["stages"][0]["layers"][4]["bias"] = {{"fill", 0.5}, {"shape", {21}}};
    check_refused(spec, weights, "layer 4 'attention_keys': \"bias\" must be [20]");
  }
  {  // an empty stage, and "layers" beside "stages"
    nlohmann::json spec = good;
    spec["stages"][1]["layers"] = nlohmann::json::array();
    spec["stages"][1]["outputs"] = nlohmann::json::array();
    spec["outputs"] = {"enc_h"};
    check_refused(spec, weights, "stage 'decode' has no layers");
    spec["layers"] = nlohmann::json::array();
    check_refused(spec, weights, "not both");
  }
}

TEST_CASE("converter/README.md quotes the worked examples' spec files exactly") {
  std::ifstream in(kSpecDir + "/../../../converter/README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const std::string marker = "`tests/models/specs/", fence = "```json\n";
  size_t quoted = 0;
  for (size_t at = readme.find(marker); at != std::string::npos; at = readme.find(marker, at + 1)) {
    const size_t name_end = readme.find("`:\n\n" + fence, at);
    if (name_end == std::string::npos || readme.find('`', at + 1) != name_end) continue;  // a mention, not a quote
    const std::string file = readme.substr(at + marker.size(), name_end - at - marker.size());
    CAPTURE(file);
    const size_t body = name_end + 4 + fence.size();
    const std::string block = readme.substr(body, readme.find("```", body) - body);
    std::ifstream spec(kSpecDir + "/" + file);
    REQUIRE(spec.good());
    CHECK(nlohmann::json::parse(block) == nlohmann::json::parse(spec));
    ++quoted;
  }
  CHECK(quoted >= 2);
}

// The classifiers saved as users have them (tests/models/make_classifier_reference.py):
// PyTorch models whose head is `fc` (a bidirectional GRU; a 2-layer LSTM under `model.`)
// and the Keras tutorial's model with its two-Dense BahdanauAttention, from Keras 2's
// save_weights .h5 (nested sublayer names). Strict but for the Keras V layer's bias,
// which adds the same number to every position's score and so cancels in the softmax.
TEST_CASE("specs of the classifiers as saved (head fc, Keras sublayer attention) match their frameworks") {
  const auto check = [](const ModelCase& c, const std::string& spec, const std::string& file, bool strict) {
    CAPTURE(c.name());
    auto converted = convert_spec(kSpecDir + "/" + spec, c.dir + "/" + file, strict);
    REQUIRE_MESSAGE(converted.ok(), converted.status().message());
    testing::check_rnn_classifier(c, *testing::load_model_bytes(converted->bytes));
  };
  size_t converted = 0;
  for (const ModelCase& c : testing::cases_of("rnn-classifier")) {
    if (c.name().rfind("rnn_classifier_fc_gru_bi", 0) == 0) {
      check(c, "rnn_classifier_fc_gru.json", "weights.pt", true);
      ++converted;
    } else if (c.name().rfind("rnn_classifier_fc_wrapped_lstm_bi_l2", 0) == 0) {
      // model.attention.v.bias cancels in the softmax, as the Keras V bias below.
      check(c, "rnn_classifier_fc_wrapped_lstm_l2.json", "weights.safetensors", false);
      ++converted;
    }
  }
  for (const ModelCase& c : testing::cases_of("keras-classifier")) {
    if (c.name().rfind("keras_seed_bahdanau", 0) != 0) continue;
    check(c, "keras_seed_classifier.json", "weights_keras2.h5", false);
    ++converted;
  }
  CHECK(converted == 3);
}
