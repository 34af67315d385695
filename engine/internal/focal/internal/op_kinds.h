// Every op kind, once: X(SchemaName, def, "spec kind") for the schema's
// `<SchemaName>Options` table, the engine's `<def>_op_def()` (engine/src/ops/<def>.cpp),
// the converter's reference function `reference::<def>_op` and its spec layer
// `spec::<def>_layer`, built from a declarative spec's {"op": "<spec kind>"}.
// Everything that dispatches on an op kind expands this list: the engine's op registry
// (engine/src/ops/op_registry.cpp, a firmware's focal_select_ops()), the reference
// evaluator and the spec builder; the build reads the rows too (cmake/FocalOpKinds.cmake)
// and compiles each row's engine/src/ops/<def>.cpp, converter/src/reference/<def>_op.cpp
// and converter/src/spec/layers/<def>_layer.cpp (where the last two exist; the others
// live in family files). The writer serializes options through the schema's generated
// object API (ModelWriter::add_op; GraphBuilder::elementwise and spec::elementwise_layer
// for an op with one input and one output of its dims), so it needs no entry, and an
// op's options are checked in one place, its engine op's load-time check, which the
// converter runs on every model it writes.
// Adding an op: a table in schema/focal.fbs (appended to the OpOptions union), one row
// here, and its three functions, each in its own file of the names above (the spec layer
// reads its fields into fb::<SchemaName>OptionsT), plus tests: no CMake list, writer or
// graph-builder helper.
#pragma once

// The op kinds with a form on static int8 activations (issue 36), X(SchemaName, def):
// `<def>_op_def()` in engine/src/ops/<def>.cpp (compiled from its row). An op runs that form when one of its
// non-constant operands is an int8 activation (ops/op_lookup.cpp); a firmware links it
// only when focal_select_ops names it under INT8_OPS.
#define FOCAL_FOR_EACH_INT8_OP(X)     \
  X(Dense, dense_int8)                \
  X(Add, add_int8)                    \
  X(LayerNorm, layernorm_int8)        \
  X(Embedding, embedding_int8)        \
  X(Recurrent, recurrent_int8)        \
  X(AttentionPool, attention_pool_int8) \
  X(MultiHeadAttention, multi_head_attention_int8) \
  X(Pool, pool_int8)                  \
  X(Scale, scale_int8)

#define FOCAL_FOR_EACH_OP(X)                                             \
  X(Dense, dense, "dense")                                               \
  X(Add, add, "add")                                                     \
  X(LayerNorm, layernorm, "layernorm")                                   \
  X(Softmax, softmax, "softmax")                                         \
  X(Attention, attention, "dot_product_attention")                       \
  X(Embedding, embedding, "embedding")                                   \
  X(RmsNorm, rmsnorm, "rmsnorm")                                         \
  X(Glu, glu, "glu")                                                     \
  X(Pool, pool, "pool")                                                  \
  X(MultiHeadAttention, multi_head_attention, "attention")               \
  X(Copy, copy, "copy")                                                  \
  X(Recurrent, recurrent, "recurrent")                                   \
  X(RecurrentStep, recurrent_step, "recurrent_step")                     \
  X(ScoreAttention, score_attention, "score_attention")                  \
  X(Concat, concat, "concat")                                            \
  X(AttentionPool, attention_pool, "attention_pool")                     \
  X(L2Normalize, l2_normalize, "l2_normalize")                           \
  X(Scale, scale, "scale")                                               \
  X(RelativePositionBias, relative_position_bias, "relative_position_bias") \
  X(Clip, clip, "clip")
