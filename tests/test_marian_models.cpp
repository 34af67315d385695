// Marian / opus-mt from a folder in the hub's layout (tests/models/make_marian_reference.py:
// config.json, model.safetensors, source/target SentencePiece vocabularies and the joint
// vocab.json), against a float64 re-implementation of transformers' modeling_marian.py:
// the encoder's output and the decoder's logits at every position on a ragged source
// batch, by transformers' names (input_ids, attention_mask given and omitted,
// decoder_input_ids; logits [batch, tgt, vocab]), greedy tokens over 24 steps through focal::translate(), the tokenizer's ids
// through vocab.json, and --dtype f16 / int8 within their bounds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "convert.h"
#include "focal/tokenizer.h"
#include "focal/translate.h"
#include "support/model_checks.h"
#include "tokenizers/vocab_mapping.h"

using namespace focal;
using testing::ModelCase;

namespace {

// The bounds of the compact weight types, as the worst mixed error of the logits
// (|got - want| / (|want| + 1)); measured 3.5e-3 (f16) and 7.8e-2 (int8) on this case.
constexpr double kF16Bound = 1e-2;
constexpr double kInt8Bound = 1e-1;

std::unique_ptr<testing::LoadedCase> converted(const ModelCase& c, bool logits_all, int64_t batch,
                                               DType dtype = DType::kF32) {
  convert::ConvertOptions options;
  options.preset = "marian";
  options.weights = {c.dir + "/model.safetensors"};
  options.config = c.dir + "/config.json";
  options.tokenizer = "unigram:" + c.dir + "/source.vocab:" + c.dir + "/vocab.json";
  options.target_tokenizer = "unigram:" + c.dir + "/target.vocab:" + c.dir + "/vocab.json";
  options.max_batch = batch;
  options.max_seq = 32;
  options.logits_all = logits_all;
  options.dtype = dtype;
  options.strict = true;  // every tensor of the hub file is used or checked
  auto result = convert::convert_checkpoint(options);
  REQUIRE_MESSAGE(result.ok(), result.status().message());
  return testing::load_model_bytes(result->bytes);
}

const float* output(Session& s, const char* name) {
  const int index = s.find_output(name);
  REQUIRE(index >= 0);
  return static_cast<const float*>(s.output(index).data);
}

void encode(Session& s, const ModelCase& c) {
  s.reset_state();
  testing::set_input(s, "input_ids", c.array("inputs/source_ids"));
  testing::set_input(s, "attention_mask", c.array("inputs/source_mask"));
  const Status status = s.run_stage(s.find_stage("encode"));
  REQUIRE_MESSAGE(status.ok(), status.message());
}

// The teacher-forced logits [B, T, V]: the whole target in one decode run.
double logits_error(testing::LoadedCase& loaded, const ModelCase& c) {
  Session& s = *loaded.session;
  encode(s, c);
  testing::set_input(s, "decoder_input_ids", c.array("inputs/prev_ids"));
  REQUIRE(s.run_stage(s.find_stage("decode")).ok());
  const auto want = c.array("expected/logits");
  return testing::max_error(output(s, "logits"), want.to_f32(), want.shape);
}

std::vector<int32_t> ids_of(const ModelCase& c, const std::string& name) {
  std::vector<int32_t> ids;
  for (const float v : c.array(name).to_f32()) ids.push_back(static_cast<int32_t>(v));
  return ids;
}

int32_t hyperparameter_id(const Model& m, const char* key) {
  const char* text = m.hyperparameter(key);
  REQUIRE(text != nullptr);
  return static_cast<int32_t>(std::atoi(text));
}

}  // namespace

TEST_CASE("Marian (hub layout): encoder output and decoder logits within 1e-4 of float64 on a ragged batch") {
  const ModelCase c = testing::model_case("marian", "marian_hub_e2_d3_d40");
  auto loaded = converted(c, true, 3);
  Session& s = *loaded->session;
  encode(s, c);
  const auto memory = c.array("expected/encoder_last_hidden_state");
  const std::vector<float> mask = c.array("inputs/source_mask").to_f32();
  const double encoder_error =
      testing::max_error(output(s, "encoder_last_hidden_state"), memory.to_f32(), memory.shape, &mask);
  const double whole = logits_error(*loaded, c);

  // Again one target position per decode run, over the KV cache.
  encode(s, c);
  const std::vector<int32_t> prev = ids_of(c, "inputs/prev_ids");
  const auto want = c.array("expected/logits");
  const int64_t batch = want.shape[0], steps = want.shape[1], vocab = want.shape[2];
  const std::vector<float> all = want.to_f32();
  double stepwise = 0.0;
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<int32_t> column(static_cast<size_t>(batch));
    std::vector<float> expected;
    for (int64_t b = 0; b < batch; ++b) {
      column[static_cast<size_t>(b)] = prev[static_cast<size_t>(b * steps + t)];
      const auto row = all.begin() + (b * steps + t) * vocab;
      expected.insert(expected.end(), row, row + vocab);
    }
    Shape shape;
    shape.rank = 2;
    shape.dims[0] = batch;
    shape.dims[1] = 1;
    REQUIRE(s.set_input(s.find_input("decoder_input_ids"), shape, column.data(), column.size() * 4).ok());
    REQUIRE(s.run_stage(s.find_stage("decode")).ok());
    stepwise = std::max(stepwise, testing::max_error(output(s, "logits"), expected, {batch, 1, vocab}));
  }
  MESSAGE("marian: encoder ", encoder_error, ", logits all at once ", whole, ", one step at a time ", stepwise);
  CHECK(encoder_error <= testing::kF32Tolerance);
  CHECK(whole <= testing::kF32Tolerance);
  CHECK(stepwise <= testing::kF32Tolerance);
}

TEST_CASE("Marian without attention_mask: the unpadded source alone gives the reference's logits at every "
          "position") {
  // transformers without an attention_mask treats every position as a token: the same as
  // the reference's first row, whose mask is all ones (the longest source).
  const ModelCase c = testing::model_case("marian", "marian_hub_e2_d3_d40");
  const std::vector<float> mask = c.array("inputs/source_mask").to_f32();
  const std::vector<int32_t> source = ids_of(c, "inputs/source_ids");
  const std::vector<int32_t> prev = ids_of(c, "inputs/prev_ids");
  const auto want = c.array("expected/logits");
  const auto memory = c.array("expected/encoder_last_hidden_state");
  const int64_t batch = want.shape[0], steps = want.shape[1], vocab = want.shape[2];
  const int64_t length = static_cast<int64_t>(mask.size()) / batch, width = memory.shape[2];
  for (int64_t j = 0; j < length; ++j) REQUIRE(mask[static_cast<size_t>(j)] == 1.0f);

  auto loaded = converted(c, false, 1);
  Session& s = *loaded->session;
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = length;
  REQUIRE(s.set_input(s.find_input("input_ids"), shape, source.data(), static_cast<size_t>(length) * 4).ok());
  const Status encoded = s.run_stage(s.find_stage("encode"));  // attention_mask left unset
  REQUIRE_MESSAGE(encoded.ok(), encoded.message());
  const std::vector<float> memory_all = memory.to_f32();
  const std::vector<float> memory_row(memory_all.begin(), memory_all.begin() + length * width);
  const double encoder_error =
      testing::max_error(output(s, "encoder_last_hidden_state"), memory_row, {1, length, width});

  shape.dims[1] = steps;
  REQUIRE(s.set_input(s.find_input("decoder_input_ids"), shape, prev.data(), static_cast<size_t>(steps) * 4).ok());
  REQUIRE(s.run_stage(s.find_stage("decode")).ok());
  const TensorInfo logits = s.model().tensor(s.model().output_tensor(s.find_output("logits")));
  CHECK(logits.shape.rank == 3);  // [batch, tgt, vocab], as transformers returns them
  const std::vector<float> all = want.to_f32();
  const std::vector<float> row(all.begin(), all.begin() + steps * vocab);
  const double error = testing::max_error(output(s, "logits"), row, {1, steps, vocab});
  MESSAGE("marian without attention_mask: encoder ", encoder_error, ", logits at every position ", error);
  CHECK(encoder_error <= testing::kF32Tolerance);
  CHECK(error <= testing::kF32Tolerance);
}

TEST_CASE("Marian: greedy translation equals the float64 reference's over 24 steps; the tokenizers map "
          "through vocab.json") {
  const ModelCase c = testing::model_case("marian", "marian_hub_e2_d3_d40");
  auto loaded = converted(c, false, 1);
  const Model& model = *loaded->model;
  const std::vector<int32_t> source = ids_of(c, "inputs/text_ids");

  // MarianTokenizer's ids: source.spm pieces looked up in vocab.json, then </s>.
  auto tokenizer = Tokenizer::from_model(model);
  REQUIRE(tokenizer.ok());
  const std::string text = c.spec.at("text").get<std::string>();
  std::vector<int32_t> ids(text.size() + 1);
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  auto count = tokenizer->encode(text.data(), text.size(), ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
  REQUIRE(count.ok());
  ids.resize(count.value());
  ids.push_back(hyperparameter_id(model, "eos_id"));
  CHECK(ids == source);

  TranslateOptions options;
  options.max_steps = static_cast<size_t>(c.spec.at("steps").get<int>());
  options.bos_id = hyperparameter_id(model, "decoder_start_id");
  options.eos_id = -1;  // all 24 steps, as the reference's loop
  std::vector<uint64_t> work(translate_scratch_bytes(options, source.size()) / 8 + 1);
  std::vector<int32_t> tokens(options.max_steps);
  auto result = translate(*loaded->session, source.data(), source.size(), options, work.data(), work.size() * 8,
                          tokens.data(), nullptr);
  REQUIRE_MESSAGE(result.ok(), result.status().message());
  tokens.resize(result->length);
  CHECK(tokens == ids_of(c, "expected/greedy_ids"));

  // The target side decodes every id the model can emit to its piece.
  auto target = Tokenizer::from_model(model, true);
  REQUIRE(target.ok());
  std::string decoded;
  for (const int32_t id : ids_of(c, "expected/translation_ids")) {
    char piece[64];
    auto n = target->decode_token(id, piece, sizeof(piece));
    REQUIRE(n.ok());
    decoded.append(piece, n.value());
  }
  CHECK(decoded == " " + c.spec.at("translation").get<std::string>());  // SentencePiece drops the leading space
}

TEST_CASE("Marian: --dtype f16 and int8 logits within their bounds") {
  const ModelCase c = testing::model_case("marian", "marian_hub_e2_d3_d40");
  const double f16 = logits_error(*converted(c, true, 3, DType::kF16), c);
  const double int8 = logits_error(*converted(c, true, 3, DType::kI8), c);
  MESSAGE("marian logits: f16 ", f16, ", int8 ", int8);
  CHECK(f16 <= kF16Bound);
  CHECK(int8 <= kInt8Bound);
}

TEST_CASE("map_pieces_to_vocab: vocab.json's ids, the other side's pieces, and what it refuses") {
  const std::string word_a = std::string("\xE2\x96\x81") + "a";  // SentencePiece's "_a"
  TokenizerSpec pieces;
  pieces.kind = fb::TokenizerKind_Unigram;
  pieces.vocab = {"<unk>", "<s>", "</s>", word_a, "b"};
  pieces.scores = {0.0f, 0.0f, 0.0f, -1.5f, -3.0f};
  pieces.unk_id = 0;
  pieces.eos_id = 2;
  const nlohmann::json vocab = {{"</s>", 0}, {"<unk>", 1}, {"b", 2}, {"x", 3}, {word_a, 4}, {"<pad>", 5}};
  auto source = convert::map_pieces_to_vocab(pieces, vocab, "vocab.json", convert::OtherPieces::kUnreachable);
  REQUIRE(source.ok());
  CHECK(source->vocab[4] == word_a);
  CHECK(source->scores[4] == -1.5f);
  CHECK(source->scores[2] == -3.0f);
  CHECK(source->scores[3] == -3.0f);  // not a piece here: the lowest score
  CHECK(source->vocab[3] == std::string("\xFF") + "x");  // never matched by UTF-8 text
  CHECK(source->unk_id == 1);
  CHECK(source->eos_id == 0);
  CHECK(source->pad_id == 5);
  auto target = convert::map_pieces_to_vocab(pieces, vocab, "vocab.json", convert::OtherPieces::kDecodable);
  REQUIRE(target.ok());
  CHECK(target->vocab[3] == "x");

  nlohmann::json missing = vocab;
  missing.erase("b");
  missing["y"] = 2;
  auto refused = convert::map_pieces_to_vocab(pieces, missing, "vocab.json", convert::OtherPieces::kUnreachable);
  REQUIRE(!refused.ok());
  CHECK(std::string(refused.status().message()).find("piece 'b'") != std::string::npos);
  nlohmann::json repeated = vocab;
  repeated["x"] = 2;
  CHECK(!convert::map_pieces_to_vocab(pieces, repeated, "vocab.json", convert::OtherPieces::kUnreachable).ok());
}
