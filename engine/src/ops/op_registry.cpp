#include "ops/op.h"

namespace focal {

const OpDef* find_op_def(fb::OpOptions type) {
  switch (type) {
    case fb::OpOptions_DenseOptions:
      return &dense_op_def();
    case fb::OpOptions_AddOptions:
      return &add_op_def();
    case fb::OpOptions_LayerNormOptions:
      return &layernorm_op_def();
    case fb::OpOptions_SoftmaxOptions:
      return &softmax_op_def();
    case fb::OpOptions_AttentionOptions:
      return &attention_op_def();
    default:
      return nullptr;
  }
}

}  // namespace focal
