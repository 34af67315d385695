// Kernels of static int8 quantization (integer activations end to end, no float): the
// matrix-vector product with per-channel requantization, the integer LSTM and GRU cells. The
// arithmetic and the formats are in fixed_point.h and activation_s16.h.
//
// The multiply loops are `dot_rows`, the exact int32 dot products of up to kQIntRows
// weight rows with one int8 vector, and qgemm_s8's forms for a layer's many tokens:
// `dot_tokens`, one weight row with kQIntTokens packed rows (the DSP extension), and
// `rows_tokens`, four weight rows with many token rows (Helium). They are the only parts
// that differ per core, chosen at build time as TFLite Micro swaps kernel files
// (qint_dot.cpp): Helium's VMLADAVA.S8 on the Cortex-M55, the DSP extension's dual 16-bit
// MACs (SXTB16, SMLAD) on the Cortex-M4 and M7, plain C everywhere else. Integer sums are
// exact, so every core's outputs equal the scalar twin's bit for bit (tests/test_qint.cpp,
// on the host, under qemu-user and in the Cortex-M kernel test images).
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace kernels {

constexpr size_t kQIntRows = 4;  // weight rows per dot_rows call: they share the x loads
// Largest K: |sum| <= K * 128 * 128 (int8 x int8) must stay below 2^31.
constexpr size_t kQIntMaxK = size_t(1) << 16;

// sums[r] = bias[r] + sum_k x[k] * w[r * w_stride + k] for r < rows (rows <= kQIntRows),
// exact in int32. `bias` may be null (no bias). Any alignment.
using QIntDotRowsFn = void (*)(const int8_t* x, const int8_t* w, size_t w_stride, size_t k,
                               size_t rows, const int32_t* bias, int32_t* sums);

// Token rows at a time in qgemm_s8's packed form: one weight row's load and sign
// extension serve all of them (the DSP kernel's 4 sums, 4 x registers and 2 w halves).
constexpr size_t kQIntTokens = 4;

// sums[t] = sums[t] + sum_{i < k} x_t[i] * w[i] for the kQIntTokens rows x_t that
// qint_pack_tokens laid out in `packed`, exact in int32. `w` any alignment.
using QIntDotTokensFn = void (*)(const uint32_t* packed, const int8_t* w, size_t k, int32_t* sums);

// sums[t][r] = bias[r] + sum_{i < k} x_t[i] * w[r * w_stride + i] for the kQIntRows
// weight rows and `tokens` rows of x (k apart), exact in int32; k a multiple of 16.
using QIntRowsTokensFn = void (*)(const int8_t* x, size_t tokens, const int8_t* w, size_t w_stride, size_t k,
                                  const int32_t* bias, int32_t* sums);

struct QIntKernelTable {
  const char* isa;  // "mve", "dsp" or "scalar"
  QIntDotRowsFn dot_rows;
  // Null where one x row against four weight rows (dot_rows) is already the faster form
  // (Helium's 16-lane VMLADAVA reads int8 x directly).
  QIntDotTokensFn dot_tokens;
  // Helium's form of qgemm_s8's products: a block of four weight rows against many
  // token rows in one call, so the call, the block's set-up and its requantization
  // record are paid once per block, not once per token. Null elsewhere.
  QIntRowsTokensFn rows_tokens;
};

// The table this build runs (qint_dot.cpp) and the plain-C twin (reference.cpp).
const QIntKernelTable& qint_kernels();
const QIntKernelTable& qint_reference_kernels();

// y = W x + b requantized, W [n][k] int8 row-major per output (stride w_stride >= k),
// symmetric per output channel. The input's zero point is folded into the bias by the
// converter (bias[j] = round(b_j / (s_x s_w[j])) - zp_x sum_k w[j][k]), as TFLite Micro
// and CMSIS-NN precompute it, so the loop multiplies raw int8 values.
struct QGemvParams {
  size_t n = 0, k = 0;
  const int8_t* w = nullptr;
  size_t w_stride = 0;
  const int32_t* bias = nullptr;        // [n] or null
  const int32_t* multiplier = nullptr;  // [n] Q31 (fixed_point.h)
  const int32_t* shift = nullptr;       // [n]
  int32_t output_zero_point = 0;        // int8 outputs only
  int32_t output_min = -128;            // clamp in the output's integer domain (a fused
  int32_t output_max = 127;             // ReLU raises output_min to the zero point)
};

// int8 outputs: y[j] = clamp(requantize(sum_j, m_j, s_j) + zero point, min, max).
void qgemv_s8(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x, int8_t* y);

// qgemm_s8's packed rows: for each step s of 4 inputs and each of the kQIntTokens rows t,
// two words of int16 halves in the pairing SXTB16 gives a word of int8 weights:
//   packed[8 s + 2 t]     = x_t[4s]     | x_t[4s + 2] << 16
//   packed[8 s + 2 t + 1] = x_t[4s + 1] | x_t[4s + 3] << 16
// Inputs past k and rows past `rows` are zeros. 2 kQIntTokens (k rounded up to 4) int16.
constexpr size_t qgemm_scratch_bytes(size_t k) { return kQIntTokens * 2 * ((k + 3) / 4 * 4); }
void qint_pack_tokens(const int8_t* x, size_t rows, size_t k, uint32_t* packed);
// x_t[i] read back from that layout.
inline int32_t packed_token_input(const uint32_t* packed, size_t t, size_t i) {
  const uint32_t word = packed[8 * (i / 4) + 2 * t + (i % 2)];
  return int32_t(int16_t(uint16_t((i % 4) >= 2 ? word >> 16 : word)));
}

// y[t] = qgemv_s8(x[t]) for t < rows: x [rows][p.k] and y [rows][p.n] contiguous, the same
// integers as qgemv_s8 row by row. `scratch`: qgemm_scratch_bytes(p.k), 4-byte aligned.
// With the build's dot_tokens, kQIntTokens rows at a time are packed into it and every
// weight row is read once per group; with rows_tokens (k a multiple of 16, n of 4) it
// holds a block's int32 sums for as many tokens as fit.
void qgemm_s8(const QIntKernelTable& kernels, const QGemvParams& p, const int8_t* x, size_t rows, int8_t* y,
              uint32_t* scratch);
// int16 outputs added to y with saturation (gate pre-activations, which sum an input and
// a recurrent product, each with its own scales, as CMSIS-NN's LSTM does):
// y[j] = saturate16(y[j] + requantize(sum_j, m_j, s_j)); zero point and clamp unused.
void qgemv_s16_accumulate(const QIntKernelTable& kernels, const QGemvParams& p,
                          const int8_t* x, int16_t* y);

// One integer LSTM cell step for `hidden` units (plain C on every core: it is O(hidden)
// next to the products' O(hidden * k)).
//  gates   [4][hidden] int16 Q3.12 pre-activations in PyTorch's order i, f, g, o
//  cell    [hidden] int16, real = q * 2^-cell_frac_bits, updated in place:
//          c = f c + i g, each product rounded to the cell's format, sum saturated
//  hidden  [hidden] int8: h = o tanh(c), from Q0.30 by `hidden_multiplier` (2^-30 /
//          hidden scale) plus the hidden state's zero point, clamped to int8
struct QLstmCellParams {
  size_t hidden = 0;
  int32_t cell_frac_bits = 11;  // in [0, 15]: 11 holds |c| < 16
  int32_t hidden_multiplier = 0;
  int32_t hidden_shift = 0;
  int32_t hidden_zero_point = 0;
};
void qlstm_cell(const QLstmCellParams& p, const int16_t* gates, int16_t* cell, int8_t* hidden);

// One integer GRU cell step for `hidden` units, PyTorch's equations (torch.nn.GRU):
//   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r (W_hn h + b_hn))  h' = (1 - z) n + z h = n + z (h - n)
// (plain C on every core, as the LSTM cell).
//  gates     [3][hidden] int16 Q3.12 in PyTorch's order r, z, n: r and z the summed
//            input and recurrent pre-activations, n only its input part W_in x + b_in
//  hidden_n  [hidden] int16 Q3.12: the recurrent part W_hn h + b_hn, which r multiplies
//            (r hidden_n rounded to Q3.12, added to n's input part with saturation)
//  state     [hidden] int16 Q0.15: the carried h, updated in place (|h| < 1 from h0 = 0)
//  hidden    [hidden] int8: the new h from Q0.30 (state << 15) by `hidden_multiplier`
//            (2^-30 / hidden scale, the LSTM's record) plus the zero point, clamped: y's
//            entry and the next step's recurrent input
struct QGruCellParams {
  size_t hidden = 0;
  int32_t hidden_multiplier = 0;
  int32_t hidden_shift = 0;
  int32_t hidden_zero_point = 0;
};
void qgru_cell(const QGruCellParams& p, const int16_t* gates, const int16_t* hidden_n, int16_t* state,
               int8_t* hidden);

// Token embedding into int8 activations: the int8 table keeps its one scale per row
// (--embedding-dtype int8), each gathered row is requantized to the activation's
// per-tensor scale and zero point by its row's multiplier (row scale / activation scale):
// y[t][d] = clamp(requantize(table[id][d], m[id], s[id]) + zero point). An id outside
// [0, vocab) is hostile input: its row is the zero point and the call returns false.
// Learned positions (a BERT-style encoder's), when `positions` is not null: token t of
// each sequence of `seq` tokens adds row t % seq of the int8 position table, requantized
// by that row's multiplier, before the one clamp:
// y[t][d] = clamp(requantize(table[id][d]) + requantize(positions[t % seq][d]) + zero point).
struct QEmbeddingParams {
  size_t vocab = 0, width = 0;
  const int8_t* table = nullptr;        // [vocab][width]
  const int32_t* multiplier = nullptr;  // [vocab] Q31
  const int32_t* shift = nullptr;       // [vocab]
  int32_t output_zero_point = 0;
  size_t seq = 1;                                // tokens per sequence (positions only)
  const int8_t* positions = nullptr;             // [>= seq][width], or null
  const int32_t* position_multiplier = nullptr;  // [rows of positions] Q31
  const int32_t* position_shift = nullptr;
};
bool qembedding_gather(const QEmbeddingParams& p, const int32_t* ids, size_t count, int8_t* y);

// Additive attention pooling on integers (the classifier's AttentionPool): for the first
// `valid` of `steps` rows x_t [features] int8 (zero point x_zero_point),
//  key_t   = tanh(W x_t + b): `projection` (n = units, k = features) into int16 Q3.12,
//            then tanh_s16 into Q0.15
//  score_t = v . key_t (v int8, symmetric), requantized by score_multiplier/shift into
//            Q4.11 (the exp's input format, activation_s16.h)
//  a_t     = softmax over t < valid in Q0.15: exp_s16(score_t - max) / sum, rounded
//  y[d]    = sum_t a_t (x_t[d] - zp) requantized by output_multiplier/shift (the real
//            2^-15 x_scale / y_scale) plus the output's zero point
// Rows t >= valid get a_t = 0; with no valid row y is the output's zero point. Since
// the a_t sum to at most 1, |sum| <= 32768 * 255 for any steps: no overflow.
// scratch: `units` int16 and `steps` int32. weights_q15 [steps] (the attention output,
// may be null).
struct QAttentionPoolParams {
  size_t steps = 0, features = 0, units = 0;
  QGemvParams projection;  // its zero point and clamp unused (int16 outputs)
  const int8_t* v = nullptr;
  int32_t score_multiplier = 0, score_shift = 0;
  int32_t x_zero_point = 0;
  int32_t output_multiplier = 0, output_shift = 0, output_zero_point = 0;
};
void qattention_pool(const QIntKernelTable& kernels, const QAttentionPoolParams& p,
                     const int8_t* x, size_t valid, int16_t* key_scratch, int32_t* score_scratch,
                     int16_t* weights_q15, int8_t* y);

// Layer normalization of one row of `width` int8 values (qlayer_norm.cpp has the
// derivation): u_i = (x_i - mean) / sqrt(var + eps) in Q11.20, computed from the exact
// integer sums and an integer square root; y_i = clamp(requantize(u_i, multiplier[i],
// shift[i]) + bias[i] + output_zero_point). The converter stores multiplier/shift for
// gamma_i / (s_y 2^20), a negative gamma as a negative multiplier (its magnitude in [2^30,
// 2^31)), bias[i] = round(beta_i / s_y) and epsilon_q = round(width^2 eps / s_x^2). width
// <= 2^16 and epsilon_q < 2^46 keep every sum in its integer type.
struct QLayerNormParams {
  size_t width = 0;
  int32_t x_zero_point = 0;
  int64_t epsilon_q = 0;
  const int32_t* multiplier = nullptr;  // [width]
  const int32_t* shift = nullptr;       // [width]
  const int32_t* bias = nullptr;        // [width]
  int32_t output_zero_point = 0;
};
constexpr int32_t kQLayerNormFracBits = 20;  // u's fractional bits
void qlayer_norm_s8(const QLayerNormParams& p, const int8_t* x, int8_t* y);

// y = a + b on int8 tensors of their own scales (qpointwise.cpp), rounded once:
// y_i = clamp(((a_i - z_a) a_multiplier + (b_i - z_b) b_multiplier + 2^(shift - 1)) >> shift
// + z_y, min, max), the multipliers s_a / s_y and s_b / s_y in units of 2^-shift. The
// converter keeps both multipliers in [0, 2^21] and shift in [1, 31], so the sum (at most
// 255 2^22) and its rounding term stay within int32.
struct QAddParams {
  int32_t a_zero_point = 0, a_multiplier = 0;
  int32_t b_zero_point = 0, b_multiplier = 0;
  int32_t shift = 1;
  int32_t output_zero_point = 0;
  int32_t output_min = -128, output_max = 127;
};
constexpr int32_t kQAddMaxMultiplier = int32_t(1) << 21;
void qadd_s8(const QAddParams& p, const int8_t* a, const int8_t* b, size_t count, int8_t* y);

// y_i = table[x_i + 128]: any function of one int8 value, tabulated by the converter.
void qlookup_s8(const int8_t* table, const int8_t* x, size_t count, int8_t* y);

// Softmax in place over scores[t] (Q4.11) for the t with valid[t] != 0 (all when `valid`
// is null), as Q0.15 weights: exp_s16(score - largest) / sum, each rounded; the other
// entries become 0. With no valid entry every weight is 0 and it returns false.
// count < 2^16.
bool softmax_q15(int32_t* scores, const uint8_t* valid, size_t count);

// Scaled dot-product attention of one head on int8 activations (qattention.cpp), as the
// integer form of torch.nn.functional.scaled_dot_product_attention:
//  score_ij = requantize(q_i . k_j) into Q4.11: q and k are symmetric (zero point 0, the
//             converter's choice for the projections that feed attention), so the int32
//             dot products are exact and run on the build's dot_rows; the multiplier is
//             s_q s_k / sqrt(head_dim) 2^11
//  w_ij     = softmax over the keys j query i sees (key_valid[j] != 0, and j <= i when
//             causal) in Q0.15; a query that sees no key gets zero weights and the
//             output's zero point
//  out_i[d] = clamp(requantize(sum_j w_ij (v_j[d] - z_v)) + z_out): the multiplier is
//             2^-15 s_v / s_out; the weights sum to about 2^15, so |sum| <= 2^15 255
// Rows are strided (q_stride, k_stride, v_stride, out_stride elements) so one head of a
// [tokens, heads * head_dim] projection is read in place. keys < 2^16.
struct QAttentionParams {
  size_t queries = 0, keys = 0, head_dim = 0;
  size_t q_stride = 0, k_stride = 0, v_stride = 0, out_stride = 0;
  bool causal = false;
  int32_t score_multiplier = 0, score_shift = 0;
  int32_t v_zero_point = 0;
  int32_t output_multiplier = 0, output_shift = 0, output_zero_point = 0;
};
struct QAttentionScratch {
  int32_t* scores;        // [keys]
  uint8_t* seen;          // [keys]
  int32_t* accumulators;  // [head_dim]
};
// weights_q15 [queries][keys] (the attention weights as an output) may be null.
void qattention_head(const QIntKernelTable& kernels, const QAttentionParams& p, const int8_t* q, const int8_t* k,
                     const int8_t* v, const uint8_t* key_valid, const QAttentionScratch& scratch,
                     int16_t* weights_q15, int8_t* out);

}  // namespace kernels
}  // namespace focal
