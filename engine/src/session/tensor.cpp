#include "focal/tensor.h"

namespace focal {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kI8:
      return "i8";
    case DType::kI32:
      return "i32";
    case DType::kI4:
      return "i4";
  }
  return "?";
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 4;
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kI8:
    case DType::kI4:  // at most a byte per element; its packed size is the layout's
      return 1;
    case DType::kI32:
      return 4;
  }
  return 0;
}

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
