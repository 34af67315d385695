#include <cmath>

#include "recurrent/recurrent_kernels.h"

namespace focal {
namespace kernels {
namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

void lstm_cell_reference(const LstmCellParams& p) {
  const size_t H = p.hidden;
  const size_t gxs = recurrent_stride(p.gates_x_stride, 4 * H),
               ghs = recurrent_stride(p.gates_h_stride, 4 * H),
               cs = recurrent_stride(p.c_stride, H), hs = recurrent_stride(p.h_stride, H);
  for (size_t b = 0; b < p.batch; ++b) {
    const float* gx = p.gates_x + b * gxs;
    const float* gh = p.gates_h + b * ghs;
    for (size_t j = 0; j < H; ++j) {
      const float i = sigmoid(gx[j] + gh[j]);
      const float f = sigmoid(gx[H + j] + gh[H + j]);
      const float g = std::tanh(gx[2 * H + j] + gh[2 * H + j]);
      const float o = sigmoid(gx[3 * H + j] + gh[3 * H + j]);
      const float c = f * p.c_prev[b * cs + j] + i * g;
      p.c[b * cs + j] = c;
      p.h[b * hs + j] = o * std::tanh(c);
    }
  }
}

void gru_cell_reference(const GruCellParams& p) {
  const size_t H = p.hidden;
  const size_t gxs = recurrent_stride(p.gates_x_stride, 3 * H),
               ghs = recurrent_stride(p.gates_h_stride, 3 * H),
               hs = recurrent_stride(p.h_stride, H);
  for (size_t b = 0; b < p.batch; ++b) {
    const float* gx = p.gates_x + b * gxs;
    const float* gh = p.gates_h + b * ghs;
    for (size_t j = 0; j < H; ++j) {
      const float r = sigmoid(gx[j] + gh[j]);
      const float z = sigmoid(gx[H + j] + gh[H + j]);
      const float n = std::tanh(gx[2 * H + j] + r * gh[2 * H + j]);
      const float h_prev = p.h_prev[b * hs + j];
      p.h[b * hs + j] = n + z * (h_prev - n);
    }
  }
}

}  // namespace kernels
}  // namespace focal
