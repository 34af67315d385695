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
    case fb::OpOptions_EmbeddingOptions:
      return &embedding_op_def();
    case fb::OpOptions_RmsNormOptions:
      return &rmsnorm_op_def();
    case fb::OpOptions_GluOptions:
      return &glu_op_def();
    case fb::OpOptions_PoolOptions:
      return &pool_op_def();
    case fb::OpOptions_MultiHeadAttentionOptions:
      return &multi_head_attention_op_def();
    case fb::OpOptions_CopyOptions:
      return &copy_op_def();
    case fb::OpOptions_RecurrentOptions:
      return &recurrent_op_def();
    case fb::OpOptions_RecurrentStepOptions:
      return &recurrent_step_op_def();
    case fb::OpOptions_ScoreAttentionOptions:
      return &score_attention_op_def();
    case fb::OpOptions_ConcatOptions:
      return &concat_op_def();
    case fb::OpOptions_AttentionPoolOptions:
      return &attention_pool_op_def();
    default:
      return nullptr;
  }
}

}  // namespace focal
