// focal convert as people call it on Hugging Face checkpoints: config.json as
// transformers writes it (tests/models/make_hf_reference.py), --preset auto, --set,
// --rename and --logits all, each against the PyTorch float64 reference, and the errors
// a user gets when one goes wrong.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "convert.h"
#include "focal/generate.h"
#include "presets/preset_detection.h"
#include "support/model_checks.h"
#include "support/scratch_dir.h"

using namespace focal;
using testing::ModelCase;

namespace {

ModelCase hf_bert() { return testing::model_case("bert", "bert_hf_cls3_l2_d40_h5"); }

convert::ConvertOptions options_for(const ModelCase& c, const std::string& weights, int64_t max_seq) {
  convert::ConvertOptions o;
  o.weights = {c.dir + "/" + weights};
  o.max_batch = 4;
  o.max_seq = max_seq;
  o.strict = true;
  return o;
}

// The HF BERT case's renamed copy ("module.encoder.", "module.head."), heads from --set.
convert::ConvertOptions renamed_bert(const ModelCase& c, const char* preset) {
  convert::ConvertOptions o = options_for(c, c.spec.at("renamed_weights").get<std::string>(), 16);
  o.preset = preset;
  o.overrides = {"num_attention_heads=5"};
  return o;
}

std::unique_ptr<testing::LoadedCase> converted(const convert::ConvertOptions& o) {
  auto result = convert::convert_checkpoint(o);
  REQUIRE_MESSAGE(result.ok(), result.status().message());
  return testing::load_model_bytes(result->bytes);
}

std::string error_of(const convert::ConvertOptions& o) {
  auto result = convert::convert_checkpoint(o);
  REQUIRE_FALSE(result.ok());
  return result.status().message();
}

// A config.json of the test's own, <name>.json in the test's scratch directory.
std::string write_config(const testing::ScratchDir& dir, const std::string& name, const std::string& json) {
  const std::string path = dir.file(name + ".json");
  std::ofstream(path) << json;
  return path;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("HF BertForSequenceClassification: 3 labels from id2label, --preset auto, labels stored") {
  const ModelCase c = hf_bert();
  convert::ConvertOptions o = options_for(c, "weights.safetensors", 16);
  o.preset = "auto";
  o.config = c.dir + "/config.json";
  std::vector<std::string> progress;
  o.progress = [&progress](const std::string& line) { progress.push_back(line); };
  auto loaded = converted(o);
  CHECK(testing::encoder_error(c, *loaded, "auto") <= testing::kF32Tolerance);
  CHECK(std::find(progress.begin(), progress.end(), "preset auto: chose bert (config.json model_type 'bert')") !=
        progress.end());
  const auto& names = c.spec.at("label_names");
  REQUIRE(names.size() == 3);
  for (size_t i = 0; i < names.size(); ++i) {
    const char* stored = loaded->model->hyperparameter(("label." + std::to_string(i)).c_str());
    REQUIRE(stored != nullptr);
    CHECK(std::string(stored) == names[i].get<std::string>());
  }
  CHECK(loaded->model->hyperparameter("label.3") == nullptr);
  // The listing by index holds what the lookup by key finds, and nothing past its end.
  const Model& m = *loaded->model;
  int labels = 0;
  for (int i = 0; i < m.hyperparameter_count(); ++i) {
    const HyperparameterInfo kv = m.hyperparameter_info(i);
    REQUIRE(m.hyperparameter(kv.key) != nullptr);
    CHECK(std::string(m.hyperparameter(kv.key)) == kv.value);
    labels += std::string(kv.key).rfind("label.", 0) == 0 ? 1 : 0;
  }
  CHECK(labels == 3);
  CHECK(std::string(m.hyperparameter_info(m.hyperparameter_count()).key).empty());
  CHECK(std::string(m.hyperparameter_info(-1).key).empty());
}

TEST_CASE("HF BERT: the same model through a spec written from converter/README.md") {
  const ModelCase c = hf_bert();
  convert::ConvertOptions o = options_for(c, "weights.pt", 0);
  o.spec = std::string(FOCAL_SOURCE_DIR) + "/tests/models/specs/hf_bert_classifier.json";
  CHECK(testing::encoder_error(c, *converted(o), "spec") <= testing::kF32Tolerance);
}

TEST_CASE("HF BERT: sizes from the tensors, only the head count from --set, BertConfig's other defaults") {
  const ModelCase c = hf_bert();
  convert::ConvertOptions o = options_for(c, "weights.npz", 16);
  o.preset = "bert";
  CHECK(contains(error_of(o), "num_attention_heads is 12 (transformers' default: the config lacks it), which "
                              "does not divide hidden_size 40; pass the model's head count with --set "
                              "num_attention_heads=N"));
  o.overrides = {"num_attention_heads=5"};
  CHECK(testing::encoder_error(c, *converted(o), "--set") <= testing::kF32Tolerance);
  o.overrides = {"num_attention_heads=5", "hidden_act=relu"};  // a string value: a different (wrong) model
  CHECK(testing::encoder_error(c, *converted(o), "relu") > 1e-2);
}

TEST_CASE("HF BERT: a config that disagrees with the tensors is an error naming both") {
  const ModelCase c = hf_bert();
  const testing::ScratchDir scratch("convert-options-configs");
  convert::ConvertOptions o = options_for(c, "weights.safetensors", 16);
  o.preset = "bert";
  o.config = write_config(scratch, "labels4", R"({"num_attention_heads": 5, "id2label": {"0": "a", "1": "b", "2": "c", "3": "d"}})");
  CHECK(contains(error_of(o), "'id2label' names 4 labels but 'classifier.weight' has 3 rows"));
  o.config = write_config(scratch, "num_labels2", R"({"num_attention_heads": 5, "num_labels": 2})");
  CHECK(contains(error_of(o), "'num_labels' is 2 but 'classifier.weight' has 3 rows"));
  o.config = write_config(scratch, "hidden48", R"({"num_attention_heads": 5, "hidden_size": 48})");
  CHECK(contains(error_of(o), "'hidden_size' is 48 but tensor 'bert.embeddings.word_embeddings.weight' has shape [120, 40]"));
  o.config = write_config(scratch, "layers3", R"({"num_attention_heads": 5, "num_hidden_layers": 3})");
  CHECK(contains(error_of(o), "'num_hidden_layers' is 3"));
  o.config = write_config(scratch, "relative", R"({"num_attention_heads": 5, "position_embedding_type": "relative_key"})");
  CHECK(contains(error_of(o), "position_embedding_type relative_key is not supported"));
  o.config = write_config(scratch, "badids", R"({"num_attention_heads": 5, "id2label": {"0": "a", "7": "b", "2": "c"}})");
  CHECK(contains(error_of(o), "'id2label' must map the ids 0 to 2"));
}

TEST_CASE("--rename maps names no preset knows onto a preset's, $1 groups and first rule winning") {
  const ModelCase c = hf_bert();
  convert::ConvertOptions o = renamed_bert(c, "bert");
  o.renames = {R"(^module\.head\.(weight|bias)$=classifier.$1)", R"(^module\.encoder\.=bert.)",
               R"(^module\.=never.)"};
  CHECK(testing::encoder_error(c, *converted(o), "renamed") <= testing::kF32Tolerance);

  o.renames = {R"(^module\.encoder\.pooler\.dense\.(weight|bias)$=pooled)"};
  const std::string both = error_of(o);
  CHECK(contains(both, "'module.encoder.pooler.dense.weight' and 'module.encoder.pooler.dense.bias' to 'pooled'"));
  o.renames = {"([unclosed=x"};
  CHECK(contains(error_of(o), "--rename '([unclosed=x': '([unclosed' is not a valid regular expression"));
  o.renames = {"no-equals-sign"};
  CHECK(contains(error_of(o), "expected FROM=TO"));
}

TEST_CASE("--preset auto: from config.json, from tensor names under any prefix, or a list of candidates") {
  const ModelCase bert = hf_bert();
  convert::ConvertOptions o = renamed_bert(bert, "auto");
  o.renames = {R"(^module\.head\.=classifier.)"};
  std::string chosen;
  o.progress = [&chosen](const std::string& line) {
    if (line.rfind("preset auto:", 0) == 0) chosen = line;
  };
  CHECK(testing::encoder_error(bert, *converted(o), "auto, prefix") <= testing::kF32Tolerance);
  CHECK(chosen == "preset auto: chose bert (tensor 'module.encoder.encoder.layer.0.attention.self.query.weight')");

  for (const char* family : {"gpt2", "llama"}) {
    const ModelCase c = testing::model_cases(std::getenv("FOCAL_MODEL_CASES"), family)[0];
    convert::ConvertOptions d = options_for(c, c.spec.at("weights").get<std::string>(), 80);
    d.max_batch = 1;
    d.preset = "auto";
    d.config = c.dir + "/config.json";  // these configs have no model_type: the tensor names decide
    d.progress = o.progress;
    testing::check_decoder(c, *converted(d));
    CHECK(contains(chosen, std::string("chose ") + family + " (tensor '"));
  }

  const ModelCase spec = testing::model_cases(std::getenv("FOCAL_MODEL_CASES"), "spec")[0];
  convert::ConvertOptions unknown = options_for(spec, spec.spec.at("weights_files")[0].get<std::string>(), 16);
  unknown.preset = "auto";
  const std::string message = error_of(unknown);
  CHECK(contains(message, "no preset recognizes the checkpoint's tensor names"));
  CHECK(contains(message, "--list-presets"));
  CHECK(contains(message, "--preset NAME"));
}

TEST_CASE("--set: malformed settings are refused; with --spec it sets the spec's symbols") {
  const ModelCase c = hf_bert();
  convert::ConvertOptions o = options_for(c, "weights.safetensors", 0);
  o.preset = "bert";
  o.overrides = {"=5"};
  CHECK(contains(error_of(o), "--set '=5': expected NAME=VALUE"));
  o.overrides = {"num_attention_heads"};
  CHECK(contains(error_of(o), "--set 'num_attention_heads': expected NAME=VALUE"));
  o.overrides = {"num_attention_heads=five"};
  CHECK(contains(error_of(o), "num_attention_heads"));
  o = options_for(c, "weights.pt", 0);
  o.spec = std::string(FOCAL_SOURCE_DIR) + "/tests/models/specs/hf_bert_classifier.json";
  o.overrides = {"seq=11"};
  auto loaded = converted(o);
  CHECK(testing::encoder_error(c, *loaded, "spec, seq 11") <= testing::kF32Tolerance);
  bool planned_11 = false;
  for (int s = 0; s < loaded->model->symbol_count(); ++s) {
    planned_11 = planned_11 || (std::string(loaded->model->symbol(s).name) == "seq" && loaded->model->symbol(s).max == 11);
  }
  CHECK(planned_11);
}

namespace {

// logits [1, n, vocab] of the ids fed in one run, and for each cached step after it.
void run_ids(Session& s, const int32_t* ids, size_t n) {
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = static_cast<int64_t>(n);
  REQUIRE(s.set_input(s.find_input("input_ids"), shape, ids, n * sizeof(int32_t)).ok());
  const Status status = s.run();
  REQUIRE_MESSAGE(status.ok(), status.message());
}

bool collect(int32_t token, void* user) {
  static_cast<std::vector<int32_t>*>(user)->push_back(token);
  return true;
}

// --logits all: the prompt and the greedy tokens in one run give PyTorch's logits at
// every position that chose a token; generate() still reproduces the greedy tokens.
void check_all_positions(const ModelCase& c, testing::LoadedCase& loaded) {
  Session& s = *loaded.session;
  std::vector<int32_t> ids;
  for (float v : c.array("inputs/prompt_ids").to_f32()) ids.push_back(static_cast<int32_t>(v));
  const size_t prompt = ids.size();
  std::vector<int32_t> greedy;
  for (float v : c.array("expected/greedy_ids").to_f32()) greedy.push_back(static_cast<int32_t>(v));
  ids.insert(ids.end(), greedy.begin(), greedy.end() - 1);
  const auto steps = c.array("expected/step_logits");  // [steps, vocab]: the logits after position prompt-1+t
  const int64_t vocab = steps.shape[1];
  s.reset_state();
  run_ids(s, ids.data(), ids.size());
  const TensorView logits = s.output(s.find_output("logits"));
  REQUIRE(logits.shape.rank == 3);
  CHECK(logits.shape.dims[1] == static_cast<int64_t>(ids.size()));
  CHECK(logits.shape.dims[2] == vocab);
  const float* got = static_cast<const float*>(logits.data) + (prompt - 1) * static_cast<size_t>(vocab);
  const double worst = testing::max_error(got, steps.to_f32(), steps.shape);
  MESSAGE(c.name(), ": --logits all, max error over ", steps.shape[0], " positions: ", worst);
  CHECK(worst <= testing::kF32Tolerance);

  std::vector<uint32_t> scratch(sampler_scratch_bytes(static_cast<size_t>(vocab)) / 4 + 1);
  auto sampler = Sampler::create(SamplingOptions(), static_cast<size_t>(vocab), scratch.data(), scratch.size() * 4);
  REQUIRE(sampler.ok());
  GenerateOptions options;
  options.max_new_tokens = greedy.size();
  std::vector<int32_t> produced;
  REQUIRE(generate(s, ids.data(), prompt, sampler.value(), options, collect, &produced).ok());
  CHECK(produced == greedy);
}

}  // namespace

TEST_CASE("--logits all: gpt2 and llama logits at every position match PyTorch; last stays the default") {
  for (const char* family : {"gpt2", "llama"}) {
    for (const ModelCase& c : testing::model_cases(std::getenv("FOCAL_MODEL_CASES"), family)) {
      CAPTURE(c.name());
      convert::ConvertOptions o = options_for(c, c.spec.at("weights").get<std::string>(), 80);
      o.max_batch = 1;
      o.preset = family;
      o.config = c.dir + "/config.json";
      o.logits_all = true;
      check_all_positions(c, *converted(o));
      o.logits_all = false;
      auto last = converted(o);
      CHECK(last->model->tensor(last->model->output_tensor(0)).shape.rank == 2);
      testing::check_decoder(c, *last);
    }
  }
  const ModelCase bert = hf_bert();
  convert::ConvertOptions o = options_for(bert, "weights.safetensors", 16);
  o.preset = "bert";
  o.config = bert.dir + "/config.json";
  o.logits_all = true;
  CHECK(contains(error_of(o), "--logits all is for decoders (gpt2, llama, qwen2, qwen3, gemma, phi3); bert has no per-position logits"));
}

TEST_CASE("gpt2 and llama from their weights alone: sizes from the tensors, heads from --set") {
  const std::pair<const char*, const char*> heads[] = {{"gpt2", "n_head"}, {"llama", "num_attention_heads"}};
  for (const auto& [family, key] : heads) {
    for (const ModelCase& c : testing::model_cases(std::getenv("FOCAL_MODEL_CASES"), family)) {
      CAPTURE(c.name());
      const nlohmann::json config = nlohmann::json::parse(std::ifstream(c.dir + "/config.json"));
      convert::ConvertOptions o = options_for(c, c.spec.at("weights").get<std::string>(), 80);
      o.max_batch = 1;
      o.preset = family;
      o.overrides = {std::string(key) + "=" + std::to_string(config.at(key).get<int>())};
      for (const char* extra : {"n_positions", "max_position_embeddings", "head_dim", "rope_theta", "rms_norm_eps"}) {
        if (config.contains(extra)) o.overrides.push_back(std::string(extra) + "=" + config.at(extra).dump());
      }
      auto result = convert::convert_checkpoint(o);
      REQUIRE_MESSAGE(result.ok(), result.status().message());
      for (const std::string& warning : result->warnings) CHECK_MESSAGE(!contains(warning, key), warning);
      testing::check_decoder(c, *testing::load_model_bytes(result->bytes));
      o.overrides = {std::string(key) + "=" + std::to_string(config.at(key).get<int>() + 1)};  // a wrong head count
      const std::string wrong = error_of(o);
      CHECK_MESSAGE(contains(wrong, key), wrong);
    }
  }
}

// The checkpoint files of a case: its "weights", else every one of its "weights_files".
std::vector<std::string> weight_files_of(const ModelCase& c) {
  if (c.spec.contains("weights")) return {c.spec.at("weights").get<std::string>()};
  std::vector<std::string> files;
  for (const auto& f : c.spec.at("weights_files")) files.push_back(f.get<std::string>());
  return files;
}

TEST_CASE("--preset auto picks every reference case's own preset from its tensor names (and Keras files)") {
  const char* root = std::getenv("FOCAL_MODEL_CASES");
  REQUIRE(root != nullptr);
  int checked = 0;
  // The families whose cases all use one preset, then those naming theirs per case.
  for (const char* family : {"bert", "torch-encoder", "gpt2", "llama", "torch-transformer", "torch-mha", "torch-decoder",
                             "rnn-seq2seq", "rnn-classifier", "torch-module", "rnn-seq2seq-modules",
                             "keras-classifier"}) {
    for (const ModelCase& c : testing::model_cases(root, family)) {
      CAPTURE(c.name());
      const std::string own = c.spec.contains("preset") ? c.spec.at("preset").get<std::string>() : family;
      std::vector<std::pair<std::string, std::string>> files;
      for (const std::string& file : weight_files_of(c)) files.emplace_back(file, own);
      if (std::ifstream(c.dir + "/weights_keras.h5").good()) files.emplace_back("weights_keras.h5", "keras-classifier");
      for (const auto& [file, want] : files) {
        CAPTURE(file);
        auto checkpoint = convert::read_checkpoint(c.dir + "/" + file);
        REQUIRE_MESSAGE(checkpoint.ok(), checkpoint.status().message());
        std::vector<convert::Checkpoint> checkpoints;
        checkpoints.push_back(std::move(checkpoint).value());
        const convert::WeightSource weights(std::move(checkpoints));
        auto detected = convert::detect_preset(nlohmann::json::object(), weights);  // no config: the names decide
        REQUIRE_MESSAGE(detected.ok(), detected.status().message());
        CHECK(std::string(detected->preset->name) == want);
        ++checked;
      }
    }
  }
  CHECK(checked >= 60);
}

TEST_CASE("llama: rope_theta as newer transformers write it, in rope_parameters; other rope types refused") {
  const ModelCase c = testing::model_case("llama", "llama_mqa_hd16_l3_d32_h4_kv1");  // rope_theta 500
  const testing::ScratchDir scratch("convert-options-rope");
  nlohmann::json config = nlohmann::json::parse(std::ifstream(c.dir + "/config.json"));
  const double theta = config.at("rope_theta").get<double>();
  config.erase("rope_theta");
  config["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", theta}};
  convert::ConvertOptions o = options_for(c, c.spec.at("weights").get<std::string>(), 80);
  o.max_batch = 1;
  o.preset = "llama";
  o.config = write_config(scratch, "rope_parameters", config.dump());
  testing::check_decoder(c, *converted(o));
  config["rope_parameters"]["rope_type"] = "yarn";
  o.config = write_config(scratch, "rope_yarn", config.dump());
  CHECK(contains(error_of(o), "rope_parameters rope_type yarn is not supported"));
}
