// The loader's own FlatBuffers verifier (engine/src/load/model.cpp and the
// options verifiers of ops/options_verifier.h) against the schema's generated one: it
// refuses whatever the generated verifier refuses, field by field and on damaged files,
// and a float op's table carrying the int8 part that only the int8 forms read; a
// firmware's selection verifies its own ops' tables, and an op without a definition is
// refused by name.
#include <doctest/doctest.h>

#include <cstring>
#include <string_view>
#include <vector>

#include "focal/focal.h"
#include "model_writer.h"
#include "ops/op_selection.h"
#include "ops/options_verifier.h"
#include "support/aligned_buffer.h"
#include "support/tiny_model.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

// An options table on its own, every scalar field written (ForceDefaults), as the root.
template <class OptionsT>
std::vector<uint8_t> options_table(const OptionsT& options) {
  flatbuffers::FlatBufferBuilder builder;
  builder.ForceDefaults(true);
  builder.Finish(OptionsT::TableType::Pack(builder, &options));
  return std::vector<uint8_t>(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
}

// The vtable of the table at `table` in `bytes`: its slots' positions in `bytes`.
std::vector<size_t> vtable_slots(const std::vector<uint8_t>& bytes, size_t table) {
  const size_t vtable = table - static_cast<size_t>(flatbuffers::ReadScalar<flatbuffers::soffset_t>(bytes.data() + table));
  const auto size = flatbuffers::ReadScalar<flatbuffers::voffset_t>(bytes.data() + vtable);
  std::vector<size_t> slots;
  for (size_t slot = 4; slot < size; slot += 2) slots.push_back(vtable + slot);
  return slots;
}

struct Verdicts {
  bool generated;
  bool float_form;
};

template <class Options>
Verdicts verify_both(const std::vector<uint8_t>& bytes) {
  AlignedBuffer buffer(bytes);
  const auto* table = flatbuffers::GetRoot<Options>(buffer.data());
  flatbuffers::Verifier generated(buffer.data(), buffer.size());
  flatbuffers::Verifier ours(buffer.data(), buffer.size());
  return {generated.VerifyTable(table), verify_float_options(ours, table)};
}

// Each field of the table in turn moved out of the buffer, then (for fields wider than a
// byte) misaligned: the float form's verifier refuses exactly what the generated one does.
// Answers the number of fields damaged.
template <class OptionsT>
int check_float_form(const OptionsT& options) {
  using Options = typename OptionsT::TableType;
  const std::vector<uint8_t> bytes = options_table(options);
  const Verdicts intact = verify_both<Options>(bytes);
  CHECK(intact.generated);
  CHECK(intact.float_form);
  const size_t table = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(bytes.data());
  int damaged_fields = 0;
  for (size_t slot : vtable_slots(bytes, table)) {
    const auto at = flatbuffers::ReadScalar<flatbuffers::voffset_t>(bytes.data() + slot);
    if (at == 0) continue;
    ++damaged_fields;
    for (flatbuffers::voffset_t moved : {flatbuffers::voffset_t(0xFFF0), flatbuffers::voffset_t(at + 1)}) {
      std::vector<uint8_t> damaged = bytes;
      flatbuffers::WriteScalar<flatbuffers::voffset_t>(damaged.data() + slot, moved);
      const Verdicts v = verify_both<Options>(damaged);
      CAPTURE(slot);
      CAPTURE(moved);
      if (!v.generated) CHECK_FALSE(v.float_form);
    }
  }
  return damaged_fields;
}

}  // namespace

TEST_CASE("the float forms' options verifiers refuse every damaged field the generated verifier refuses") {
  fb::DenseOptionsT dense;
  dense.activation = fb::Activation_Relu;
  CHECK(check_float_form(dense) == 1);
  fb::EmbeddingOptionsT embedding;
  embedding.scale = 8.0f;
  CHECK(check_float_form(embedding) == 1);
  fb::RecurrentOptionsT recurrent;
  recurrent.cell = fb::RecurrentCell_Gru;
  recurrent.hidden = 16;
  recurrent.bidirectional = true;
  CHECK(check_float_form(recurrent) == 3);
  CHECK(check_float_form(fb::AttentionPoolOptionsT()) == 0);  // its one field is the int8 part
  fb::LayerNormOptionsT layer_norm;
  layer_norm.epsilon = 1e-6f;
  CHECK(check_float_form(layer_norm) == 1);
  CHECK(check_float_form(fb::AddOptionsT()) == 0);  // its one field is the int8 part
}

// An options table holding only its int8 part: the generated verifier accepts it, the
// float form refuses it.
template <class Options, class OptionsT>
void check_int8_part_refused(const OptionsT& options) {
  const Verdicts v = verify_both<Options>(options_table(options));
  CHECK(v.generated);
  CHECK_FALSE(v.float_form);
}

TEST_CASE("a float form refuses an int8 part, which the generated verifier accepts") {
  fb::DenseOptionsT dense;
  dense.requantization = std::make_unique<fb::RequantizationT>();
  check_int8_part_refused<fb::DenseOptions>(dense);
  fb::EmbeddingOptionsT embedding;
  embedding.requantization = std::make_unique<fb::RequantizationT>();
  check_int8_part_refused<fb::EmbeddingOptions>(embedding);
  fb::RecurrentOptionsT recurrent;
  recurrent.quantized = std::make_unique<fb::RecurrentQuantizationT>();
  check_int8_part_refused<fb::RecurrentOptions>(recurrent);
  fb::AttentionPoolOptionsT pool;
  pool.quantized = std::make_unique<fb::AttentionPoolQuantizationT>();
  check_int8_part_refused<fb::AttentionPoolOptions>(pool);
  fb::LayerNormOptionsT layer_norm;
  layer_norm.quantized = std::make_unique<fb::LayerNormQuantizationT>();
  check_int8_part_refused<fb::LayerNormOptions>(layer_norm);
  fb::AddOptionsT add;
  add.quantized = std::make_unique<fb::AddQuantizationT>();
  check_int8_part_refused<fb::AddOptions>(add);
  // The tables with two int8 parts: each one alone is refused.
  fb::DenseOptionsT gelu;
  gelu.activation = fb::Activation_GeluErf;
  gelu.lookup = std::make_unique<fb::Int8LookupT>();
  check_int8_part_refused<fb::DenseOptions>(gelu);
  fb::EmbeddingOptionsT positions;
  positions.position_requantization = std::make_unique<fb::RequantizationT>();
  check_int8_part_refused<fb::EmbeddingOptions>(positions);
}

namespace {

bool generated_verifies(const std::vector<uint8_t>& file) {
  AlignedBuffer buffer(file);
  const auto prefixed = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(buffer.data()) + sizeof(flatbuffers::uoffset_t);
  if (prefixed > file.size()) return false;
  flatbuffers::Verifier verifier(buffer.data(), prefixed);
  return fb::VerifySizePrefixedModelBuffer(verifier);
}

Status load_unchecked(const std::vector<uint8_t>& file) {
  AlignedBuffer buffer(file);
  LoadOptions options;
  options.verify_checksum = false;  // the structure is what is tested
  auto model = Model::from_bytes(buffer.data(), buffer.size(), options);
  return model.ok() ? Status() : model.status();
}

// Every vtable slot of the model table, of each op and of each op's options table moved
// out of the file: whatever the generated verifier refuses, the loader refuses.
void check_tables_of(const std::vector<uint8_t>& file) {
  REQUIRE(generated_verifies(file));
  REQUIRE(load_unchecked(file).ok());
  const uint8_t* base = file.data();
  const fb::Model& model = *fb::GetSizePrefixedModel(base);
  std::vector<size_t> tables = {static_cast<size_t>(reinterpret_cast<const uint8_t*>(&model) - base)};
  for (const fb::Op* op : *model.ops()) {
    tables.push_back(static_cast<size_t>(reinterpret_cast<const uint8_t*>(op) - base));
    tables.push_back(static_cast<size_t>(static_cast<const uint8_t*>(op->options()) - base));
  }
  int refused = 0;
  for (size_t table : tables) {
    for (size_t slot : vtable_slots(file, table)) {
      if (flatbuffers::ReadScalar<flatbuffers::voffset_t>(base + slot) == 0) continue;
      std::vector<uint8_t> damaged = file;
      flatbuffers::WriteScalar<flatbuffers::voffset_t>(damaged.data() + slot, 0xFFF0);
      CAPTURE(table);
      CAPTURE(slot);
      if (generated_verifies(damaged)) continue;
      ++refused;
      const Status status = load_unchecked(damaged);
      CHECK_FALSE(status.ok());
    }
  }
  CHECK(refused > 0);
}

}  // namespace

TEST_CASE("every field of the model, its ops and their options, moved out of the file, is refused") {
  check_tables_of(testing::build_tiny_model());

  // ids -> Embedding -> Dense (Relu) -> Softmax: float forms whose tables have an int8 part.
  ModelWriter writer;
  const int ids = writer.add_input("ids", DType::kI32, {1, 3});
  const int table = writer.add_constant_f32("table", {5, 4}, std::vector<float>(20, 0.25f));
  const int e = writer.add_activation("e", DType::kF32, {1, 3, 4});
  const int w = writer.add_constant_f32("w", {2, 4}, std::vector<float>(8, 0.5f));
  const int logits = writer.add_activation("logits", DType::kF32, {1, 3, 2});
  const int y = writer.add_output("y", DType::kF32, {1, 3, 2});
  writer.add_embedding("embed", ids, table, -1, -1, -1, e, 2.0f);
  writer.add_dense("dense", e, w, -1, logits, fb::Activation_Relu);
  writer.add_softmax("softmax", logits, y);
  check_tables_of(writer.finish().value());
}

TEST_CASE("every byte flipped: what the generated verifier refuses, the loader refuses") {
  const std::vector<uint8_t> file = testing::build_tiny_model();
  int refused = 0;
  for (size_t at = 0; at < file.size(); ++at) {
    std::vector<uint8_t> flipped = file;
    flipped[at] ^= 0xFF;
    if (generated_verifies(flipped)) continue;
    ++refused;
    CAPTURE(at);
    CHECK_FALSE(load_unchecked(flipped).ok());
  }
  CHECK(refused > 0);
}

TEST_CASE("a float Dense whose options carry a requantization record is refused as corrupt") {
  ModelWriter writer;
  const int x = writer.add_input("x", DType::kF32, {1, 4});
  const int w = writer.add_constant_f32("w", {3, 4}, std::vector<float>(12, 0.5f));
  const int y = writer.add_output("y", DType::kF32, {1, 3});
  fb::DenseOptionsT options;
  options.requantization = std::make_unique<fb::RequantizationT>();
  writer.add_op("dense", std::move(options), {x, w}, {y});
  auto file = writer.finish();
  REQUIRE(file.ok());
  REQUIRE(generated_verifies(file.value()));
  const Status status = load_unchecked(file.value());
  CHECK_FALSE(status.ok());
  CHECK(std::strstr(status.message(), "FlatBuffers verification") != nullptr);
}

namespace {

struct OnlyDense {  // a firmware's focal_select_ops(OPS Dense)
  static constexpr std::string_view names[] = {"Dense"};
  static constexpr std::string_view int8_names[] = {""};
};

}  // namespace

TEST_CASE("a selection verifies its own ops' tables, a damaged one refused, and leaves the others to the op check") {
  fb::DenseOptionsT dense;
  dense.activation = fb::Activation_Relu;
  std::vector<uint8_t> bytes = options_table(dense);
  const size_t table = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(bytes.data());
  const std::vector<size_t> slots = vtable_slots(bytes, table);
  REQUIRE(slots.size() == 1);
  {
    AlignedBuffer buffer(bytes);
    flatbuffers::Verifier verifier(buffer.data(), buffer.size());
    CHECK(verify_selected_op_options<OnlyDense>(verifier, fb::OpOptions_DenseOptions,
                                                flatbuffers::GetRoot<fb::DenseOptions>(buffer.data()), false));
  }
  flatbuffers::WriteScalar<flatbuffers::voffset_t>(bytes.data() + slots[0], 0xFFF0);
  AlignedBuffer buffer(bytes);
  const void* damaged = flatbuffers::GetRoot<fb::DenseOptions>(buffer.data());
  flatbuffers::Verifier verifier(buffer.data(), buffer.size());
  CHECK_FALSE(verify_selected_op_options<OnlyDense>(verifier, fb::OpOptions_DenseOptions, damaged, false));
  // Dense's int8 form and the Clip kind are left out: no definition, so check_ops refuses
  // the op by name ("... is a Clip op, which this build leaves out", example_missing_op).
  CHECK(find_selected_op_def<OnlyDense>(fb::OpOptions_DenseOptions) != nullptr);
  CHECK(find_selected_int8_op_def<OnlyDense>(fb::OpOptions_DenseOptions) == nullptr);
  CHECK(find_selected_op_def<OnlyDense>(fb::OpOptions_ClipOptions) == nullptr);
}

TEST_CASE("an op of a type unknown to this engine is refused, naming the type") {
  ModelWriter writer;
  const int x = writer.add_input("x", DType::kF32, {1, 4});
  const int w = writer.add_constant_f32("w", {3, 4}, std::vector<float>(12, 0.5f));
  const int y = writer.add_output("y", DType::kF32, {1, 3});
  writer.add_dense("dense", x, w, -1, y);
  std::vector<uint8_t> file = writer.finish().value();
  const fb::Op& op = *fb::GetSizePrefixedModel(file.data())->ops()->Get(0);
  const auto at = table_fields(&op).GetOptionalFieldOffset(fb::Op::VT_OPTIONS_TYPE);
  REQUIRE(at != 0);
  file[static_cast<size_t>(reinterpret_cast<const uint8_t*>(&op) - file.data()) + at] = 200;
  const Status status = load_unchecked(file);
  CHECK(status.code() == StatusCode::kUnsupported);
  CHECK_MESSAGE(std::strstr(status.message(), "op 0 'dense' has op type 200, unknown to this engine") != nullptr,
                status.message());
}
