// Recurrent layers in double, PyTorch's gate order and both bias vectors:
//   LSTM (i, f, g, o): c = f c_prev + i g, h = o tanh(c)
//   GRU (r, z, n):     n = tanh(gx_n + r gh_n), h = n + z (h_prev - n)
// with gx = x W_ih^T + b_ih and gh = h_prev W_hh^T + b_hh, [G * H] per row.
#include <algorithm>
#include <cmath>
#include <vector>

#include "reference/reference_ops.h"

namespace focal {
namespace reference {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// One cell update of `hidden` units; h and c (LSTM) are updated in place.
void cell(bool lstm, size_t hidden, const double* gx, const double* gh, double* h, double* c) {
  for (size_t j = 0; j < hidden; ++j) {
    if (lstm) {
      const double i = sigmoid(gx[j] + gh[j]);
      const double f = sigmoid(gx[hidden + j] + gh[hidden + j]);
      const double g = std::tanh(gx[2 * hidden + j] + gh[2 * hidden + j]);
      const double o = sigmoid(gx[3 * hidden + j] + gh[3 * hidden + j]);
      c[j] = f * c[j] + i * g;
      h[j] = o * std::tanh(c[j]);
    } else {
      const double r = sigmoid(gx[j] + gh[j]);
      const double z = sigmoid(gx[hidden + j] + gh[hidden + j]);
      const double n = std::tanh(gx[2 * hidden + j] + r * gh[2 * hidden + j]);
      h[j] = n + z * (h[j] - n);
    }
  }
}

// Recurrent op slots and outputs (schema/focal.fbs RecurrentOptions).
enum Slot { kX = 0, kMask, kWih, kWhh, kBih, kBhh, kWihR, kWhhR, kBihR, kBhhR, kH0, kC0 };
enum Output { kY = 0, kHn, kCn };

// One direction d of a Recurrent op: forward over t = 0..S-1, or backward from the end;
// a row past its length keeps its state and outputs zeros.
void run_direction(const OpContext& c, int d, const std::vector<int64_t>& lengths) {
  const fb::RecurrentOptions& o = *c.op.options_as_RecurrentOptions();
  const bool lstm = o.cell() == fb::RecurrentCell_Lstm;
  const Operand& x = c.in(kX);
  const size_t batch = x.dim(0), seq = x.dim(1), in = x.dim(2), hidden = size_t(o.hidden());
  const size_t gates = (lstm ? 4 : 3) * hidden, width = (o.bidirectional() ? 2 : 1) * hidden;
  const int base = d == 0 ? kWih : kWihR;
  std::vector<double> gx(batch * seq * gates), gh(gates), h(batch * hidden, 0.0), cs(batch * hidden, 0.0);
  dense_rows(c, c.in(base), &c.in(base + 2), x.values, in, batch * seq, gx.data(), gates);
  for (size_t b = 0; b < batch; ++b) {
    for (size_t j = 0; j < hidden; ++j) {
      if (c.has_input(kH0)) h[b * hidden + j] = c.in(kH0).at(b * width + size_t(d) * hidden + j);
      if (c.has_input(kC0)) cs[b * hidden + j] = c.in(kC0).at(b * width + size_t(d) * hidden + j);
    }
  }
  for (size_t step = 0; step < seq; ++step) {
    const size_t t = d == 0 ? step : seq - 1 - step;
    for (size_t b = 0; b < batch; ++b) {
      double* y = c.outputs[kY].values + (b * seq + t) * width + size_t(d) * hidden;
      if (static_cast<int64_t>(t) >= lengths[b]) {
        for (size_t j = 0; j < hidden; ++j) y[j] = 0.0;
        continue;
      }
      dense_rows(c, c.in(base + 1), &c.in(base + 3), &h[b * hidden], hidden, 1, gh.data(), gates);
      cell(lstm, hidden, &gx[(b * seq + t) * gates], gh.data(), &h[b * hidden], &cs[b * hidden]);
      for (size_t j = 0; j < hidden; ++j) y[j] = h[b * hidden + j];
    }
  }
  for (int out = kHn; out <= kCn; ++out) {
    if (!c.has_output(out)) continue;
    const std::vector<double>& state = out == kHn ? h : cs;
    for (size_t b = 0; b < batch; ++b) {
      for (size_t j = 0; j < hidden; ++j) c.outputs[out].values[b * width + size_t(d) * hidden + j] = state[b * hidden + j];
    }
  }
}

}  // namespace

// x [B, S, In] (mask [B, S]) -> y [B, S, dirs * H], optional h_n and c_n [B, dirs * H].
Status recurrent_op(const OpContext& c) {
  const Operand& x = c.in(kX);
  std::vector<int64_t> lengths(x.dim(0), static_cast<int64_t>(x.dim(1)));
  if (c.has_input(kMask)) FOCAL_RETURN_IF_ERROR(mask_lengths(c.in(kMask), x.dim(0), x.dim(1), "mask", &lengths));
  const int directions = c.op.options_as_RecurrentOptions()->bidirectional() ? 2 : 1;
  for (int d = 0; d < directions; ++d) run_direction(c, d, lengths);
  return Status();
}

// One step: x [B, In], slots 1 w_ih, 2 w_hh, 3 b_ih, 4 b_hh, 5 h state, 6 c state
// (LSTM); output 0 the new h, also written into the h state (and c into its state).
Status recurrent_step_op(const OpContext& c) {
  const fb::RecurrentStepOptions& o = *c.op.options_as_RecurrentStepOptions();
  const bool lstm = o.cell() == fb::RecurrentCell_Lstm;
  const Operand& x = c.in(0);
  const size_t batch = x.dim(0), hidden = size_t(o.hidden()), gates = (lstm ? 4 : 3) * hidden;
  std::vector<double> gx(batch * gates), gh(batch * gates);
  double* h = c.in(5).values;
  dense_rows(c, c.in(1), &c.in(3), x.values, x.dim(1), batch, gx.data(), gates);
  dense_rows(c, c.in(2), &c.in(4), h, hidden, batch, gh.data(), gates);
  for (size_t b = 0; b < batch; ++b) {
    double* cb = lstm ? c.in(6).values + b * hidden : nullptr;
    if (cb != nullptr && o.reset_cell()) std::fill(cb, cb + hidden, 0.0);
    cell(lstm, hidden, &gx[b * gates], &gh[b * gates], h + b * hidden, cb);
    for (size_t j = 0; j < hidden; ++j) c.outputs[0].values[b * hidden + j] = h[b * hidden + j];
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
