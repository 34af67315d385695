// The default registry: every op. A firmware may link a smaller one instead
// (ops/op_selection.h, cmake/FocalSelectOps.cmake); keep nothing else in this file, or
// linking that one would pull this one in too.
#include "ops/op_selection.h"

namespace focal {
namespace {

struct AllOps {
#define FOCAL_OP_NAME(Name, def, spec_kind) #Name,
  static constexpr std::string_view names[] = {FOCAL_FOR_EACH_OP(FOCAL_OP_NAME)};
#undef FOCAL_OP_NAME
#define FOCAL_INT8_OP_NAME(Name, def) #Name,
  static constexpr std::string_view int8_names[] = {FOCAL_FOR_EACH_INT8_OP(FOCAL_INT8_OP_NAME)};
#undef FOCAL_INT8_OP_NAME
};

}  // namespace

const OpDef* find_op_def(fb::OpOptions type) { return find_selected_op_def<AllOps>(type); }
const OpDef* find_int8_op_def(fb::OpOptions type) { return find_selected_int8_op_def<AllOps>(type); }
bool verify_op_options(flatbuffers::Verifier& verifier, fb::OpOptions type, const void* options,
                       bool int8) {
  return verify_selected_op_options<AllOps>(verifier, type, options, int8);
}

}  // namespace focal
