// The pointwise step of LSTM and GRU cells, in PyTorch's gate order, as a kernel table
// per instruction set (its kernel set, dispatch/kernel_set_instance.cpp, written once in recurrent_simd.hpp) and the
// scalar reference twins (reference.cpp). Each step's matrix work is two GEMMs done
// before it (the input one can cover a whole sequence at once):
//   gates_x = x W_ih^T + b_ih   [batch, G * H]   (G = 4 for LSTM, 3 for GRU)
//   gates_h = h W_hh^T + b_hh   [batch, G * H]
// with PyTorch's weight_ih_l0 / weight_hh_l0 / bias_ih_l0 / bias_hh_l0 as they are, the
// biases added by the GEMMs (so b_hh's n part sits inside the GRU's r * (...)); this
// step fuses everything else. Rows are addressed with strides in floats (0: dense), so
// gates_x can be one time step of a [seq, batch, G * H] buffer and h can be written
// into one direction's half of a bidirectional [seq, batch, 2H] output.
// Kernels trust their arguments and never allocate.
#pragma once

#include <cstddef>

namespace focal {
namespace kernels {

// LSTM (torch.nn.LSTM / LSTMCell), gates in the order i, f, g, o:
//   i = sigmoid(gx_i + gh_i)   f = sigmoid(gx_f + gh_f)
//   g = tanh(gx_g + gh_g)      o = sigmoid(gx_o + gh_o)
//   c = f * c_prev + i * g     h = o * tanh(c)
// c may alias c_prev (in place); h may alias nothing read.
struct LstmCellParams {
  size_t batch = 1, hidden = 0;
  const float* gates_x = nullptr;                                             // [batch, 4H]
  const float* gates_h = nullptr;                                             // [batch, 4H]
  const float* c_prev = nullptr;                                              // [batch, H]
  float* c = nullptr;                                                         // [batch, H]
  float* h = nullptr;                                                         // [batch, H]
  size_t gates_x_stride = 0, gates_h_stride = 0, c_stride = 0, h_stride = 0;  // 0: dense
};

// GRU (torch.nn.GRU / GRUCell), gates in the order r, z, n:
//   r = sigmoid(gx_r + gh_r)   z = sigmoid(gx_z + gh_z)
//   n = tanh(gx_n + r * gh_n)  (gh_n = h W_hn^T + b_hn: the bias inside the product)
//   h = n + z * (h_prev - n)   (= (1 - z) n + z h_prev, as PyTorch's CPU kernel computes it)
// h may alias h_prev (in place).
struct GruCellParams {
  size_t batch = 1, hidden = 0;
  const float* gates_x = nullptr;                               // [batch, 3H]
  const float* gates_h = nullptr;                               // [batch, 3H]
  const float* h_prev = nullptr;                                // [batch, H]
  float* h = nullptr;                                           // [batch, H]
  size_t gates_x_stride = 0, gates_h_stride = 0, h_stride = 0;  // 0: dense; h_stride for both h's
};

// In an unnamed namespace, as every helper shared with the per-ISA translation units.
namespace {
inline size_t recurrent_stride(size_t stride, size_t dense) { return stride != 0 ? stride : dense; }
}  // namespace

// sigmoid(x) = 1 / (1 + e^-x) with std::exp; tanh with std::tanh.
void lstm_cell_reference(const LstmCellParams& p);
void gru_cell_reference(const GruCellParams& p);

using LstmCellFn = void (*)(const LstmCellParams& p);
using GruCellFn = void (*)(const GruCellParams& p);

struct RecurrentKernelTable {
  const char* isa;
  LstmCellFn lstm_cell;
  GruCellFn gru_cell;
};

}  // namespace kernels
}  // namespace focal
