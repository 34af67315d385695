// find_op_def() for a chosen set of ops, so that a firmware links only the op code (and
// the kernels behind it) its model uses. ops/op_registry.cpp instantiates it with every
// op; cmake/FocalSelectOps.cmake generates a file that instantiates it with a few:
//
//   struct Selected {
//     static constexpr std::string_view names[] = {"Dense", "Recurrent"};
//     static constexpr std::string_view int8_names[] = {""};  // int8 forms ("": none)
//   };
//   const focal::OpDef* focal::find_op_def(focal::fb::OpOptions type) {
//     return focal::find_selected_op_def<Selected>(type);
//   }
//   const focal::OpDef* focal::find_int8_op_def(focal::fb::OpOptions type) {
//     return focal::find_selected_int8_op_def<Selected>(type);
//   }
//   bool focal::verify_op_options(flatbuffers::Verifier& verifier, focal::fb::OpOptions type,
//                                 const void* options, bool int8) {
//     return focal::verify_selected_op_options<Selected>(verifier, type, options, int8);
//   }
//
// Those definitions win over the library's (the linker takes an archive member only for
// a symbol still undefined), and a model that needs a left-out op is refused at load with
// a message naming it.
#pragma once

#include <string_view>

#include "ops/op.h"
#include "ops/options_verifier.h"
#include "focal/internal/op_kinds.h"

namespace focal {

// True if `name` is one of FOCAL_FOR_EACH_INT8_OP's schema names, or "" (a selection of none).
constexpr bool is_int8_op_name(std::string_view name) {
#define FOCAL_INT8_OP_NAME_MATCHES(Name, def) name == #Name ||
  return FOCAL_FOR_EACH_INT8_OP(FOCAL_INT8_OP_NAME_MATCHES) name.empty();
#undef FOCAL_INT8_OP_NAME_MATCHES
}

// True if `name` is one of FOCAL_FOR_EACH_OP's schema names.
constexpr bool is_op_name(std::string_view name) {
#define FOCAL_OP_NAME_MATCHES(Name, def, spec_kind) name == #Name ||
  return FOCAL_FOR_EACH_OP(FOCAL_OP_NAME_MATCHES) false;
#undef FOCAL_OP_NAME_MATCHES
}

template <class Selection>
constexpr bool op_selected(std::string_view name) {
  for (std::string_view selected : Selection::names) {
    if (selected == name) return true;
  }
  return false;
}

template <class Selection>
constexpr bool int8_op_selected(std::string_view name) {
  for (std::string_view selected : Selection::int8_names) {
    if (selected == name) return true;
  }
  return false;
}

template <class Selection>
constexpr bool all_int8_op_names() {
  for (std::string_view selected : Selection::int8_names) {
    if (!is_int8_op_name(selected)) return false;
  }
  return true;
}

// Each selected name must be an op, or "" (a selection of none): a typo is a compile
// error, not a missing op at run time.
template <class Selection>
constexpr bool all_op_names() {
  for (std::string_view selected : Selection::names) {
    if (!is_op_name(selected) && !selected.empty()) return false;
  }
  return true;
}

// `if constexpr` on a dependent condition: a left-out op's definition is never
// instantiated, so nothing references its code and --gc-sections drops it.
template <class Selection>
const OpDef* find_selected_op_def(fb::OpOptions type) {
  static_assert(all_op_names<Selection>(), "an op name in the selection is not an op (see focal/internal/op_kinds.h)");
  switch (type) {
#define FOCAL_SELECTED_OP_CASE(Name, def, spec_kind)  \
  case fb::OpOptions_##Name##Options:                 \
    if constexpr (op_selected<Selection>(#Name)) {    \
      return &def##_op_def();                         \
    } else {                                          \
      return nullptr;                                 \
    }
    FOCAL_FOR_EACH_OP(FOCAL_SELECTED_OP_CASE)
#undef FOCAL_SELECTED_OP_CASE
    default:
      return nullptr;
  }
}

// The int8 forms the same way.
template <class Selection>
const OpDef* find_selected_int8_op_def(fb::OpOptions type) {
  static_assert(all_int8_op_names<Selection>(),
                "an INT8_OPS name in the selection has no int8 form (see focal/internal/op_kinds.h)");
  switch (type) {
#define FOCAL_SELECTED_INT8_OP_CASE(Name, def)       \
  case fb::OpOptions_##Name##Options:                \
    if constexpr (int8_op_selected<Selection>(#Name)) { \
      return &def##_op_def();                        \
    } else {                                         \
      return nullptr;                                \
    }
    FOCAL_FOR_EACH_INT8_OP(FOCAL_SELECTED_INT8_OP_CASE)
#undef FOCAL_SELECTED_INT8_OP_CASE
    default:
      return nullptr;
  }
}

// The selected forms' verifiers only: a firmware links the verifiers of the tables its
// ops read, where the schema's union verifier (fb::VerifyOpOptions) would link them all.
// A kind or form the selection leaves out answers true without reading the table: the
// loader's op check refuses the op next, naming it, before anything reads its options.
template <class Selection>
bool verify_selected_op_options(flatbuffers::Verifier& verifier, fb::OpOptions type,
                                const void* options, bool int8) {
  switch (type) {
#define FOCAL_SELECTED_OPTIONS_CASE(Name, def, spec_kind)                           \
  case fb::OpOptions_##Name##Options: {                                            \
    const auto* table = static_cast<const fb::Name##Options*>(options);            \
    if constexpr (int8_op_selected<Selection>(#Name)) {                            \
      if (int8) return verify_options(verifier, table);                            \
    }                                                                              \
    if constexpr (op_selected<Selection>(#Name)) {                                 \
      if (!int8) return verify_float_options(verifier, table);                     \
    }                                                                              \
    return true;                                                                   \
  }
    FOCAL_FOR_EACH_OP(FOCAL_SELECTED_OPTIONS_CASE)
#undef FOCAL_SELECTED_OPTIONS_CASE
    default:
      return true;  // a type unknown to this engine: refused by the op check too
  }
}

}  // namespace focal
