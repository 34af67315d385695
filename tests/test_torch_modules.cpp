// PyTorch's transformer modules as people save them (tests/models/make_torch_module_reference.py):
// the module's own state_dict, at the top or under a wrapper's prefix, converted from the
// weights plus only the hyperparameters no tensor shows, and again through a declarative
// spec on the same checkpoint; both match the module's float64 forward within 1e-4.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "convert.h"
#include "support/model_checks.h"

using namespace focal;
using testing::ModelCase;

namespace {

Result<convert::Converted> convert_with(const ModelCase& c, const std::string& weights, const std::string& preset,
                                        const std::string& config_or_spec) {
  convert::ConvertOptions options;
  if (preset.empty()) {
    options.spec = config_or_spec;
  } else {
    options.preset = preset;
    options.config = config_or_spec;
  }
  options.weights = {c.dir + "/" + weights};
  options.max_batch = 4;
  options.max_seq = preset.empty() ? 0 : 16;
  options.strict = true;  // every tensor of the module is used
  return convert::convert_checkpoint(options);
}

std::unique_ptr<testing::LoadedCase> converted(const ModelCase& c, bool through_spec) {
  const std::string preset = through_spec ? "" : c.spec.at("preset").get<std::string>();
  const std::string file = c.spec.at(through_spec ? "spec" : "config").get<std::string>();
  auto result = convert_with(c, c.spec.at("weights").get<std::string>(), preset, c.dir + "/" + file);
  REQUIRE_MESSAGE(result.ok(), result.status().message());
  return testing::load_model_bytes(result->bytes);
}

// One run on every input the case gives the preset by PyTorch's names (the masks in
// PyTorch's sense, 1 = pad; none in the *_nomask cases, as the module was called), or the
// spec its own (1 = token); the worst error over the outputs, at the positions the case's
// valid_mask keeps (PyTorch's values at padded query positions mean nothing).
double single_run_error(const ModelCase& c, testing::LoadedCase& loaded, bool through_spec) {
  Session& s = *loaded.session;
  for (const auto& name : c.spec.at(through_spec ? "spec_inputs" : "inputs")) {
    testing::set_input(s, name.get<std::string>(), c.array("inputs/" + name.get<std::string>()));
  }
  const Status status = s.run();
  REQUIRE_MESSAGE(status.ok(), status.message());
  const bool masked = !c.spec.at("valid_mask").is_null();
  const std::vector<float> mask =
      masked ? c.array("inputs/" + c.spec.at("valid_mask").get<std::string>()).to_f32() : std::vector<float>{};
  double worst = 0.0;
  for (const auto& name : c.spec.at("outputs")) {
    const auto want = c.array("expected/" + name.get<std::string>());
    const TensorView got = s.output(s.find_output(name.get<std::string>().c_str()));
    worst = std::max(worst, testing::max_error(static_cast<const float*>(got.data), want.to_f32(), want.shape,
                                               masked ? &mask : nullptr));
  }
  return worst;
}

std::string error_of(const ModelCase& c, const std::string& weights, const std::string& preset,
                     const std::string& config_text) {
  const std::string config = c.dir + "/" + preset + ".config.json";
  std::ofstream(config) << config_text;
  auto result = convert_with(c, weights, preset, config);
  REQUIRE(!result.ok());
  return result.status().message();
}

}  // namespace

TEST_CASE("bare nn.TransformerEncoder, nn.Transformer, nn.TransformerDecoder, nn.MultiheadAttention under any "
          "prefix, from weights and nhead: preset and spec match PyTorch") {
  const std::vector<ModelCase> all = testing::cases_of("torch-module");
  REQUIRE_MESSAGE(all.size() >= 8, "the torch-module reference cases are missing: is FOCAL_MODEL_CASES set?");
  for (const ModelCase& c : all) {
    for (const bool through_spec : {false, true}) {
      if (through_spec && c.spec.at("spec").is_null()) continue;  // a form the spec cannot write
      CAPTURE(c.name());
      CAPTURE(through_spec);
      auto loaded = converted(c, through_spec);
      if (c.spec.at("checks") == "encoder_decoder" && !through_spec) {
        testing::check_encoder_decoder(c, *loaded);  // stages encode and decode
      } else {
        const double error = single_run_error(c, *loaded, through_spec);
        MESSAGE(c.name(), std::string(through_spec ? " spec" : " preset"), ": max error ", error);
        CHECK(error <= testing::kF32Tolerance);
      }
    }
  }
}

TEST_CASE("PyTorch module presets say what is missing or inconsistent") {
  const std::vector<ModelCase> found = testing::cases_of("torch-module");
  const std::vector<ModelCase> errors = testing::cases_of("torch-module-errors");
  REQUIRE(!errors.empty());
  const auto encoder = std::find_if(found.begin(), found.end(), [](const ModelCase& c) {
    return c.spec.at("preset") == "torch-transformer-encoder";
  });
  REQUIRE(encoder != found.end());

  const std::string no_heads = error_of(*encoder, "weights.pt", "torch-transformer-encoder", "{}");
  CAPTURE(no_heads);
  CHECK(no_heads.find("cannot tell nhead") != std::string::npos);
  CHECK(no_heads.find("--set nhead=N") != std::string::npos);
  CHECK(no_heads.find("--config FILE.json") != std::string::npos);

  const ModelCase& bad = errors[0];
  const std::string layer = error_of(bad, "layer_mismatch.pt", "torch-transformer-encoder", R"({"nhead": 4})");
  CAPTURE(layer);
  CHECK(layer.find("layer 'layers.1' has d_model 24") != std::string::npos);
  CHECK(layer.find("expected 40") != std::string::npos);

  const std::string two = error_of(bad, "two_encoders.pt", "torch-transformer-encoder", R"({"nhead": 4})");
  CAPTURE(two);
  CHECK(two.find("2 candidate nn.TransformerEncoder modules") != std::string::npos);
  CHECK(two.find("'enc_a.', 'enc_b.'") != std::string::npos);
  CHECK(two.find("--set prefix=NAME") != std::string::npos);
  // Picking one converts it; a prefix that holds none lists the candidates.
  const std::string config = bad.dir + "/pick.config.json";
  std::ofstream(config) << R"({"nhead": 3, "prefix": "enc_b."})";
  convert::ConvertOptions options;
  options.preset = "torch-transformer-encoder";
  options.weights = {bad.dir + "/two_encoders.pt"};
  options.config = config;
  options.max_seq = 8;
  auto picked = convert::convert_checkpoint(options);
  CHECK_MESSAGE(picked.ok(), picked.status().message());
  CHECK(error_of(bad, "two_encoders.pt", "torch-transformer-encoder", R"({"nhead": 4, "prefix": "enc_c."})")
            .find("the candidates are 'enc_a.', 'enc_b.'") != std::string::npos);

  // nhead must divide d_model; a size key the tensors contradict names both.
  CHECK(error_of(*encoder, "weights.pt", "torch-transformer-encoder", R"({"nhead": 7})")
            .find("nhead 7 does not divide d_model") != std::string::npos);
  CHECK(error_of(*encoder, "weights.pt", "torch-transformer-encoder", R"({"nhead": 5, "d_model": 32})")
            .find("config d_model 32 disagrees with the checkpoint") != std::string::npos);
  // The wrong preset for the module says which one fits.
  CHECK(error_of(*encoder, "weights.pt", "torch-encoder", R"({"nhead": 5})")
            .find("--preset torch-transformer-encoder") != std::string::npos);
  CHECK(error_of(*encoder, "weights.pt", "torch-transformer", R"({"nhead": 5})")
            .find("the checkpoint holds no nn.Transformer") != std::string::npos);
}
