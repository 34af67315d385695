// Every op kind the engine implements, once: X(SchemaName, def) for the schema's
// `<SchemaName>Options` table and the function `<def>_op_def()` in ops/<def>.cpp.
// The registries (ops/op_registry.cpp: all of them; a firmware's focal_select_ops():
// a chosen few) and the declarations in ops/op.h expand this list.
#pragma once

#define FOCAL_FOR_EACH_OP(X)                    \
  X(Dense, dense)                               \
  X(Add, add)                                   \
  X(LayerNorm, layernorm)                       \
  X(Softmax, softmax)                           \
  X(Attention, attention)                       \
  X(Embedding, embedding)                       \
  X(RmsNorm, rmsnorm)                           \
  X(Glu, glu)                                   \
  X(Pool, pool)                                 \
  X(MultiHeadAttention, multi_head_attention)   \
  X(Copy, copy)                                 \
  X(Recurrent, recurrent)                       \
  X(RecurrentStep, recurrent_step)              \
  X(ScoreAttention, score_attention)            \
  X(Concat, concat)                             \
  X(AttentionPool, attention_pool)
