// PyTorch parity for the RNN families, live (tests/models/make_rnn_reference.py writes
// the cases at test time): LSTM/GRU sequence-to-sequence models with Bahdanau and Luong
// attention (teacher-forced logits and alignments for a ragged batch, 50 greedy tokens
// exactly, beam search as the reference implements it) and the attention-pooled
// classifier; every case converted from .pt, .safetensors and .npz.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "convert.h"
#include "support/rnn_checks.h"

using namespace focal;
using testing::ModelCase;

namespace {

std::vector<ModelCase> rnn_cases(const char* family, size_t at_least) {
  const char* root = std::getenv("FOCAL_MODEL_CASES");
  auto found = root != nullptr ? testing::model_cases(root, family) : std::vector<ModelCase>{};
  REQUIRE_MESSAGE(found.size() >= at_least, "too few reference cases of ", family, ": is FOCAL_MODEL_CASES set?");
  return found;
}

Result<convert::Converted> convert_with(const ModelCase& c, const std::string& file, int64_t max_batch,
                                        const std::string& config = "config.json") {
  convert::ConvertOptions options;
  options.preset = c.spec.at("preset").get<std::string>();
  options.weights = {c.dir + "/" + file};
  options.config = c.dir + "/" + config;
  options.max_batch = max_batch;
  options.strict = true;
  return convert::convert_checkpoint(options);
}

std::unique_ptr<testing::LoadedCase> convert_file(const ModelCase& c, const std::string& file, int64_t max_batch) {
  auto converted = convert_with(c, file, max_batch);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  return testing::load_model_bytes(converted->bytes);
}

// The conversion's error message, which must contain every one of `parts`.
void check_refused(const ModelCase& c, const std::string& file, const std::string& config,
                   std::initializer_list<const char*> parts) {
  auto converted = convert_with(c, file, 1, config);
  REQUIRE_FALSE(converted.ok());
  const std::string message = converted.status().message();
  MESSAGE(c.name(), " ", file, " with ", config, ": ", message);
  for (const char* part : parts) CHECK_MESSAGE(message.find(part) != std::string::npos, "lacks: ", part);
}

}  // namespace

TEST_CASE("RNN seq2seq (LSTM/GRU, Bahdanau, Luong dot/general/concat) match PyTorch: greedy and beam") {
  for (const ModelCase& c : rnn_cases("rnn-seq2seq", 5)) {
    CAPTURE(c.name());
    testing::check_seq2seq(c, *convert_file(c, c.spec.at("weights").get<std::string>(), 4));
  }
}

TEST_CASE("RNN seq2seq by transformers' names: input_ids without attention_mask, decoder_input_ids") {
  for (const ModelCase& c : rnn_cases("rnn-seq2seq", 5)) {
    CAPTURE(c.name());
    testing::check_seq2seq_without_mask(c, *convert_file(c, c.spec.at("weights").get<std::string>(), 4));
  }
}

TEST_CASE("RNN seq2seq converts from every checkpoint format") {
  const ModelCase c = rnn_cases("rnn-seq2seq", 1)[0];
  for (const auto& file : c.spec.at("weights_files")) {
    CAPTURE(file.get<std::string>());
    testing::check_seq2seq(c, *convert_file(c, file.get<std::string>(), 4));
  }
}

// The tutorial's Encoder/AttentionDecoder (Linear([s; h]) -> 1 scoring without tanh, zero
// cell each step; and with tanh, score_activation tanh in config.json), PyTorch's translation tutorial (BahdanauAttention Wa/Ua/Va), 2-layer GRU Luong models in the chatbot tutorial's naming (general, dot,
// concat) and a 2-layer LSTM Luong with input feeding, from each weights file with
// config.json holding only the tokens by transformers' names (bos_token_id, eos_token_id; Luong dot:
// decoder_start_token_id beside a different bos_token_id, eos_token_id as a list; the feeding
// case by our older bos_id, eos_id) and the score activation, combine order, input feeding.
TEST_CASE("RNN seq2seq written as tutorials write them match PyTorch from their weights: greedy tokens exactly") {
  for (const ModelCase& c : rnn_cases("rnn-seq2seq-modules", 7)) {
    for (const auto& file : c.spec.at("weights_files")) {
      CAPTURE(c.name());
      CAPTURE(file.get<std::string>());
      testing::check_seq2seq(c, *convert_file(c, file.get<std::string>(), 4));
    }
  }
}

TEST_CASE("RNN seq2seq conversion errors name what to pass or what is missing") {
  for (const ModelCase& c : rnn_cases("rnn-seq2seq-modules", 3)) {
    CAPTURE(c.name());
    if (c.name().find("translation") != std::string::npos) continue;  // converts: the test above
    if (c.name().find("tutorial") != std::string::npos) {
      check_refused(c, "missing_fc_out.safetensors", "config.json",
                    {"'decoder.fc_out.weight'", "nearest names: ", "decoder.attention.weight"});
      continue;
    }
    if (c.name().find("feeding") != std::string::npos) {  // [embedded; X]: context or h~, equally wide
      check_refused(c, "weights.pt", "config_no_feeding.json", {"input_feeding=true", "input_feeding"});
      continue;
    }
    check_refused(c, "weights.pt", "config_no_order.json", {"combine_order=state_first", "--set", "--config"});
    check_refused(c, "weights.pt", "config_no_bos.json",
                  {"starts from", "bos_token_id", "decoder_start_token_id", "--set bos_token_id=", "--config"});
    check_refused(c, "weights.pt", "config_bos_disagrees.json", {"'bos_token_id' is 1 but 'bos_id' is 2"});
    check_refused(c, "weights.pt", "config_two_eos.json", {"'eos_token_id' lists 2 ids", "give one id"});
    check_refused(c, "mismatch_layers.safetensors", "config.json", {"decoder has 2 layers and the encoder 3"});
  }
}

TEST_CASE("the classifier from a Keras .h5 (keras-classifier preset) matches PyTorch") {
  size_t converted = 0;
  for (const ModelCase& c : rnn_cases("rnn-classifier", 2)) {
    if (!std::ifstream(c.dir + "/weights_keras.h5").good()) continue;
    CAPTURE(c.name());
    convert::ConvertOptions options;
    options.preset = "keras-classifier";
    options.weights = {c.dir + "/weights_keras.h5"};
    options.config = c.dir + "/config.json";
    options.max_batch = 4;
    options.strict = true;
    auto result = convert::convert_checkpoint(options);
    REQUIRE_MESSAGE(result.ok(), result.status().message());
    auto loaded = testing::load_model_bytes(result->bytes);
    testing::check_keras_classifier(c, *loaded);  // input_ids alone, as the Keras model, which has no mask
    ++converted;
  }
  CHECK(converted >= 1);
}

TEST_CASE("attention-pooled RNN classifiers match PyTorch (sigmoid and softmax heads)") {
  for (const ModelCase& c : rnn_cases("rnn-classifier", 2)) {
    for (const auto& file : c.spec.at("weights_files")) {
      CAPTURE(c.name());
      CAPTURE(file.get<std::string>());
      auto loaded = convert_file(c, file.get<std::string>(), 4);
      testing::check_rnn_classifier(c, *loaded);
      testing::check_rnn_classifier_without_mask(c, *loaded);
    }
  }
}
