// Which definition an op runs with (ops/op.h): its float form, or its form on int8
// activations when one of its operands is one. Kept apart from the registry
// (op_registry.cpp), which a firmware replaces with its own selection.
#include "ops/op.h"

namespace focal {
namespace {

bool any_int8_activation(const fb::Model& model, const flatbuffers::Vector<int32_t>* operands) {
  if (operands == nullptr) return false;
  for (int32_t t : *operands) {
    if (t < 0 || static_cast<uint32_t>(t) >= model.tensors()->size()) continue;
    const fb::Tensor& tensor = *model.tensors()->Get(static_cast<uint32_t>(t));
    // An int8 KV cache is an I8 State: its op's float form handles it.
    if (tensor.dtype() == fb::DType_I8 && tensor.role() != fb::TensorRole_Constant &&
        tensor.role() != fb::TensorRole_State) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool runs_int8(const fb::Model& model, const fb::Op& op) {
  return any_int8_activation(model, op.inputs()) || any_int8_activation(model, op.outputs());
}

const OpDef* find_op_def(const fb::Model& model, const fb::Op& op) {
  return runs_int8(model, op) ? find_int8_op_def(op.options_type()) : find_op_def(op.options_type());
}

}  // namespace focal
