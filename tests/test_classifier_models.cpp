// The attention-pooled classifiers converted from weights alone (no config: every size
// from the tensors), from the cases tests/models/make_classifier_reference.py writes at
// test time: the Keras tutorial model (two-Dense BahdanauAttention; with its
// Bidirectional LSTM, and with a Bidirectional GRU) from a Keras 2 save_weights .h5, a
// Keras 2 model.save .h5, a Keras 3 .keras archive and a Keras 3 .weights.h5, against a
// NumPy float64 re-implementation of Keras's layers; PyTorch classifiers with a head
// named `fc`, a wrapper prefix, a 2-layer LSTM whose module name does not say LSTM, and
// a GRU, against float64 PyTorch on a ragged padded batch.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "convert.h"
#include "support/model_checks.h"
#include "support/rnn_checks.h"

using namespace focal;
using testing::ModelCase;

namespace {

void convert_and_check(const ModelCase& c, const std::string& preset, const std::string& file) {
  CAPTURE(c.name());
  CAPTURE(file);
  convert::ConvertOptions options;
  options.preset = preset;
  options.weights = {c.dir + "/" + file};
  options.max_batch = 4;
  options.strict = true;  // every tensor of the file is taken (the optimizer's state is not read)
  auto converted = convert::convert_checkpoint(options);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  auto loaded = testing::load_model_bytes(converted->bytes);
  if (preset == "keras-classifier") {
    testing::check_keras_classifier(c, *loaded);  // only input_ids, as the Keras model
    return;
  }
  testing::check_rnn_classifier(c, *loaded);
  testing::check_rnn_classifier_without_mask(c, *loaded);  // the mask is optional
}

}  // namespace

TEST_CASE(
    "keras-classifier: the tutorial's BahdanauAttention model (LSTM, GRU) from Keras 2 .h5 and "
    "Keras 3 .keras") {
  const std::vector<ModelCase> found = testing::cases_of("keras-classifier");
  REQUIRE_MESSAGE(found.size() == 2,
                  "keras-classifier cases (LSTM, GRU): is FOCAL_MODEL_CASES set?");
  for (const ModelCase& c : found) {
    REQUIRE(c.spec.at("weights_files").size() == 4);
    for (const auto& file : c.spec.at("weights_files"))
      convert_and_check(c, "keras-classifier", file.get<std::string>());
  }
}

TEST_CASE("keras-classifier: an attention layer with its own W, b, v from a Keras 3 .keras archive") {
  size_t converted = 0;  // tests/models/make_keras_reference.py writes them from PyTorch cases
  for (const ModelCase& c : testing::cases_of("rnn-classifier")) {
    if (!std::ifstream(c.dir + "/weights_keras3.keras").good()) continue;
    convert_and_check(c, "keras-classifier", "weights_keras3.keras");
    ++converted;
  }
  CHECK(converted >= 1);
}

TEST_CASE("rnn-classifier from weights alone: head fc, wrapper prefix, stacked LSTM, GRU") {
  size_t converted = 0;
  for (const ModelCase& c : testing::cases_of("rnn-classifier")) {
    if (c.name().find("_fc_") == std::string::npos) continue;
    for (const auto& file : c.spec.at("weights_files"))
      convert_and_check(c, "rnn-classifier", file.get<std::string>());
    ++converted;
  }
  CHECK(converted == 2);
}
