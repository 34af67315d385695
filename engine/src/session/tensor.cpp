#include "focal/tensor.h"

namespace focal {

// dtype_name and dtype_size: support/element_types.cpp, from the one element type table.

const char* tensor_role_name(TensorRole role) {
  switch (role) {
    case TensorRole::kConstant:
      return "constant";
    case TensorRole::kInput:
      return "input";
    case TensorRole::kOutput:
      return "output";
    case TensorRole::kActivation:
      return "activation";
    case TensorRole::kState:
      return "state";
  }
  return "?";
}

}  // namespace focal
