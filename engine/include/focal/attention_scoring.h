// The classic attention of RNN sequence-to-sequence models: one decoder step attends
// to every encoder state of one source sequence.
//
//   score_j   = additive (Bahdanau):   v . tanh(query_proj + keys_proj[j])
//               Luong dot:             scale * (s . h_j)
//               Luong general:         scale * (s^T W h_j)  =  scale * ((W^T s) . h_j)
//               concat:                scale * act(w . [s; h_j] + b), act none or tanh
//   weights_j = softmax over the valid positions j < key_length (0 elsewhere)
//   context   = sum_j weights_j * values[j]
//
// The other classic forms are the additive one with its matrices split:
//   - Bahdanau, v . tanh(W1 s + W2 h_j + b): query_proj = W1 s + b (a dense op, once per
//     decoder step), keys_proj[j] = W2 h_j (once per source sequence);
//   - a single Linear over the concatenation, v . tanh(W [s; h_j] + b), and Luong's
//     "concat" score, v . tanh(W_c [s; h_j]): split W = [W_s | W_h] by columns, then
//     query_proj = W_s s (+ b), keys_proj[j] = W_h h_j.
// A scalar bias added to every score does not change the softmax and is not needed.
//
// Rows of keys and values are addressed with a row stride in elements (0: dense), so
// they can be views into a larger buffer, e.g. one sequence of a [src_len, batch, dim]
// encoder output (stride batch * dim), and values may be the same buffer as the keys.
// One call is one sequence: for a batch, call once per sequence.
//
// Both entry points allocate nothing: scores live in a caller workspace of
// *_workspace_bytes(params) bytes. Outputs (context, weights, workspace) must not
// overlap any input. A sequence with key_length 0 yields zero weights and a zero
// context, never NaN.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/status.h"

namespace focal {

// Limits checked by every entry point: dims (units, query/key/value dims) 1 to
// kMaxScoringDim, src_len 1 to kMaxScoringSrcLen.
constexpr size_t kMaxScoringDim = size_t(1) << 16;
constexpr size_t kMaxScoringSrcLen = size_t(1) << 24;

struct AdditiveAttentionParams {
  size_t src_len = 1;    // encoder positions
  size_t units = 1;      // attention units: length of query_proj, keys_proj rows and v
  size_t value_dim = 1;  // length of the values rows and the context
  // Valid positions: j < key_length; -1: all src_len (else 0 to src_len).
  int32_t key_length = -1;

  const float* query_proj = nullptr;  // [units]: W1 s (+ bias), once per decoder step
  const float* keys_proj = nullptr;   // [src_len][units]: W2 h_j, once per source
  size_t keys_proj_stride = 0;        // elements between rows; 0: units
  const float* v = nullptr;           // [units]
  const float* values = nullptr;      // [src_len][value_dim], often the encoder states
  size_t values_stride = 0;           // elements between rows; 0: value_dim

  float* context = nullptr;  // [value_dim], written
  float* weights = nullptr;  // optional [src_len]: the alignment, 0 at masked positions
};

enum class LuongScore : uint8_t {
  kDot = 0,      // s . h_j; query_dim == key_dim, w must be null
  kGeneral = 1,  // s^T W h_j with W [query_dim][key_dim]
  // act(w . [s; h_j] + b) with w [query_dim + key_dim], state part first: one
  // nn.Linear(query_dim + key_dim, 1) over the concatenation (Luong's concat score with
  // a single unit), act = tanh when `tanh` is set, else none.
  kConcat = 2,
};

struct LuongAttentionParams {
  LuongScore score = LuongScore::kDot;
  size_t src_len = 1;
  size_t query_dim = 1;  // dq: length of the decoder state s
  size_t key_dim = 1;    // dk: length of the key rows h_j (== query_dim for kDot)
  size_t value_dim = 1;
  int32_t key_length = -1;  // as in AdditiveAttentionParams
  // Multiplies every score: 1 for Luong's own forms; 1/sqrt(key_dim) for scaled dot
  // product; TensorFlow's LuongAttention(scale=True) learns it as a scalar g. Finite.
  float scale = 1.0f;

  const float* query = nullptr;  // [query_dim]: the decoder state s
  // kGeneral: W [query_dim][key_dim], row-major, mapping a key to query space: exactly
  // the weight of torch.nn.Linear(key_dim, query_dim, bias=False), whose output W h_j
  // is dotted with s. kConcat: the Linear's weight [query_dim + key_dim] as stored
  // ([1, dq + dk]: the state's columns first). kDot: null.
  const float* w = nullptr;
  const float* keys = nullptr;    // [src_len][key_dim], the encoder states h_j
  size_t keys_stride = 0;         // elements between rows; 0: key_dim
  const float* values = nullptr;  // [src_len][value_dim], often == keys
  size_t values_stride = 0;       // elements between rows; 0: value_dim

  float* context = nullptr;  // [value_dim], written
  float* weights = nullptr;  // optional [src_len], 0 at masked positions

  // kConcat only: the Linear's bias (one float, optional: null is 0) and whether tanh
  // follows it. With no tanh the bias and the state part shift every score of the
  // sequence alike (the softmax drops them), but they are added all the same.
  const float* bias = nullptr;
  bool tanh = false;
};

// Scratch bytes for these params (data pointers are not needed yet): the src_len scores,
// plus W^T s for kGeneral, plus 64 for alignment. 0 when the sizes are invalid.
size_t additive_attention_workspace_bytes(const AdditiveAttentionParams& params);
size_t luong_attention_workspace_bytes(const LuongAttentionParams& params);

// Check params (sizes, strides, pointers, key_length; kInvalidArgument or kOutOfRange,
// kResourceExhausted for a short workspace) and compute with the best kernels for this
// CPU. Allocate nothing.
Status additive_attention(const AdditiveAttentionParams& params, void* workspace,
                          size_t workspace_bytes);
Status luong_attention(const LuongAttentionParams& params, void* workspace, size_t workspace_bytes);

// The scalar reference twins, in f32 with the straightforward three-pass softmax (the
// scores are recomputed, so no workspace). Same contract otherwise; kGeneral evaluates
// s . (W h_j) as written, not through W^T s.
Status additive_attention_reference(const AdditiveAttentionParams& params);
Status luong_attention_reference(const LuongAttentionParams& params);

// Which implementation the two entry points run here: "avx512", "avx2", "sse2",
// "neon64", "neon", "scalar".
const char* attention_scoring_isa();

}  // namespace focal
