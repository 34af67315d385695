// How an op's options table is verified in the loader's structural pass
// (load/model.cpp, through the registry's verify_op_options, ops/op.h): by the
// form the op runs, so that a firmware links the verifiers of its selected ops' tables
// only. An int8 form, and the float form of every op but six, uses the
// schema's generated Verify. The float forms of the six ops whose tables also carry an
// int8 part (requantization records only the int8 forms read) verify their scalar fields,
// listed below, as the generated Verify does and refuse the int8 part, which a float op
// does not have: a build without int8 forms then links none of the verifiers of
// Requantization, RecurrentQuantization, AttentionPoolQuantization, AddQuantization and
// LayerNormQuantization, unless it runs MultiHeadAttention, whose float form keeps the
// generated Verify (its table has a vector besides scalars) and refuses the int8 part in
// its load-time check. tests/test_options_verifier.cpp
// checks the float forms against the generated Verify, field by field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

#include "focal/internal/op_kinds.h"
#include "focal_generated.h"

namespace focal {

// Each options table (not null) as the schema's generated Verify checks it, one function
// per table, defined in load/model.cpp: there, beside the model's other tables, the
// compiler shares their field checks (MultiHeadAttention's 186 bytes on Cortex-M4, 288
// when a firmware's registry instantiated it on its own).
#define FOCAL_DECLARE_OPTIONS_VERIFIER(Name, def, spec_kind) \
  bool verify_options(flatbuffers::Verifier& verifier, const fb::Name##Options* options);
FOCAL_FOR_EACH_OP(FOCAL_DECLARE_OPTIONS_VERIFIER)
#undef FOCAL_DECLARE_OPTIONS_VERIFIER

// A scalar field of an options table: its vtable slot (the generated VT_ constant) and
// its size in bytes, which is also its alignment.
struct ScalarField {
  flatbuffers::voffset_t slot;
  uint8_t size;
};

// A float form's table, field by field (ops/options_verifier.cpp): its vtable, each of
// `fields` absent or in the buffer and aligned to its size (the generated VerifyField),
// and the int8 parts' slots, `int8_parts`, empty.
bool verify_float_table(flatbuffers::Verifier& verifier, const void* options, const ScalarField* fields,
                        size_t count, const flatbuffers::voffset_t* int8_parts, size_t int8_count);

// The six tables with an int8 part: each one's scalar fields and the int8 part's slots,
// as schema/focal.fbs declares them (a field added there is added here).
template <class Options>
struct FloatFields {
  static constexpr bool has_int8_part = false;
};
template <>
struct FloatFields<fb::DenseOptions> {
  static constexpr bool has_int8_part = true;
  static constexpr ScalarField fields[] = {{fb::DenseOptions::VT_ACTIVATION, 1}};
  static constexpr size_t count = 1;
  static constexpr flatbuffers::voffset_t int8_parts[] = {fb::DenseOptions::VT_REQUANTIZATION,
                                                          fb::DenseOptions::VT_LOOKUP};
};
template <>
struct FloatFields<fb::EmbeddingOptions> {
  static constexpr bool has_int8_part = true;
  static constexpr ScalarField fields[] = {{fb::EmbeddingOptions::VT_SCALE, 4}};
  static constexpr size_t count = 1;
  static constexpr flatbuffers::voffset_t int8_parts[] = {fb::EmbeddingOptions::VT_REQUANTIZATION,
                                                          fb::EmbeddingOptions::VT_POSITION_REQUANTIZATION};
};
template <>
struct FloatFields<fb::RecurrentOptions> {
  static constexpr bool has_int8_part = true;
  static constexpr ScalarField fields[] = {{fb::RecurrentOptions::VT_CELL, 1},
                                           {fb::RecurrentOptions::VT_HIDDEN, 4},
                                           {fb::RecurrentOptions::VT_BIDIRECTIONAL, 1}};
  static constexpr size_t count = 3;
  static constexpr flatbuffers::voffset_t int8_parts[] = {fb::RecurrentOptions::VT_QUANTIZED};
};
template <>
struct FloatFields<fb::AddOptions> {  // its one field is the int8 part
  static constexpr bool has_int8_part = true;
  static constexpr const ScalarField* fields = nullptr;
  static constexpr size_t count = 0;
  static constexpr flatbuffers::voffset_t int8_parts[] = {fb::AddOptions::VT_QUANTIZED};
};
template <>
struct FloatFields<fb::LayerNormOptions> {
  static constexpr bool has_int8_part = true;
  static constexpr ScalarField fields[] = {{fb::LayerNormOptions::VT_EPSILON, 4}};
  static constexpr size_t count = 1;
  static constexpr flatbuffers::voffset_t int8_parts[] = {fb::LayerNormOptions::VT_QUANTIZED};
};
template <>
struct FloatFields<fb::AttentionPoolOptions> {  // its one field is the int8 part
  static constexpr bool has_int8_part = true;
  static constexpr const ScalarField* fields = nullptr;
  static constexpr size_t count = 0;
  static constexpr flatbuffers::voffset_t int8_parts[] = {fb::AttentionPoolOptions::VT_QUANTIZED};
};

// A float form's options table: the generated Verify, or for the six, field by field.
template <class Options>
bool verify_float_options(flatbuffers::Verifier& verifier, const Options* options) {
  using Fields = FloatFields<Options>;
  if constexpr (Fields::has_int8_part) {
    return verify_float_table(verifier, options, Fields::fields, Fields::count, Fields::int8_parts,
                              std::size(Fields::int8_parts));
  } else {
    return verify_options(verifier, options);
  }
}

// A generated table as flatbuffers::Table (its private base), whose field checks a
// hand-written verifier calls one by one, as the generated Verify does.
template <class Generated>
const flatbuffers::Table& table_fields(const Generated* table) {
  return *reinterpret_cast<const flatbuffers::Table*>(table);
}

}  // namespace focal
