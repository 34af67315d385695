// An LSTM or GRU layer on int8 activations (schema RecurrentOptions,
// RecurrentQuantization): one or two directions, ragged rows, TFLite's integer LSTM cell
// or the GRU cell on its formats (kernels/qint, qlstm_cell and qgru_cell). Per row and
// step: gates = 0, += x_t W_ih^T + b_ih and += h W_hh^T + b_hh (qgemv_s16_accumulate,
// int16 Q3.12; a GRU's n rows of the recurrent product go to their own buffer, since r
// multiplies them), then the cell, whose int8 h is both y's entry and the next step's
// recurrent input. Steps past a row's length write y's zero point (real 0, as the f32
// form writes 0) and leave the state waiting, so the reverse direction starts at the
// row's last valid step.
//
// Workspace (bytes): gates int16 [G H] | cell (LSTM) or h (GRU, Q0.15) int16 [H] | h int8
// [H] | (GRU) W_hn h + b_hn int16 [H] | lengths int32 [B], each region 64-aligned:
// independent of the sequence length.
#include <cstring>

#include "focal/internal/graph.h"
#include "ops/int8_operands.h"
#include "ops/sequence_mask.h"

namespace focal {
namespace {

enum Slot { kX = 0, kMask, kWih, kWhh, kBih, kBhh, kWihR, kWhhR, kBihR, kBhhR, kH0, kC0, kSlots };

bool is_gru(const fb::RecurrentOptions& o) { return o.cell() == fb::RecurrentCell_Gru; }
int64_t gate_count(const fb::RecurrentOptions& o) { return is_gru(o) ? 3 : 4; }

struct Regions {
  size_t gates, cell, h, hidden_n, lengths, end;
};

Regions regions(int64_t batch, int64_t hidden, int64_t gates) {
  const auto next = [](size_t at, uint64_t bytes) { return at + static_cast<size_t>(align_up(bytes, 64)); };
  Regions r;
  r.gates = 0;
  r.cell = next(r.gates, uint64_t(hidden) * uint64_t(gates) * 2);
  r.h = next(r.cell, uint64_t(hidden) * 2);
  r.hidden_n = next(r.h, uint64_t(hidden));
  r.lengths = next(r.hidden_n, gates == 3 ? uint64_t(hidden) * 2 : 0);
  r.end = next(r.lengths, uint64_t(batch) * 4);
  return r;
}

Status check_direction(const OpCheck& c, const fb::RecurrentQuantization& q, int d, int first_slot, int64_t in,
                       int64_t rows, int64_t hidden) {
  if (!c.has_input(first_slot) || !c.has_input(first_slot + 1)) return c.fail("missing the direction's weights");
  if (c.has_input(first_slot + 2) || c.has_input(first_slot + 3)) {
    return c.fail("an int8 recurrent layer's biases are its requantization's");
  }
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, c.input(first_slot), rows, in));
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, c.input(first_slot + 1), rows, hidden));
  const uint32_t i = static_cast<uint32_t>(d);
  FOCAL_RETURN_IF_ERROR(expect_requantization(c, q.input_to_gates()->Get(i), "input-to-gates", rows, true, true));
  return expect_requantization(c, q.hidden_to_gates()->Get(i), "hidden-to-gates", rows, true, true);
}

Status check_quantized(const OpCheck& c, const fb::RecurrentOptions& o) {
  const fb::RecurrentQuantization* q = o.quantized();
  const uint32_t dirs = o.bidirectional() ? 2 : 1;
  if (q == nullptr || q->input_to_gates() == nullptr || q->hidden_to_gates() == nullptr ||
      q->input_to_gates()->size() != dirs || q->hidden_to_gates()->size() != dirs) {
    return c.fail("an int8 recurrent layer needs its quantization, one input and one hidden record per direction");
  }
  if (!is_gru(o) && (q->cell_frac_bits() < 0 || q->cell_frac_bits() > 15)) {
    return c.fail("cell_frac_bits %d outside [0, 15]", static_cast<int>(q->cell_frac_bits()));
  }
  return expect_multiplier(c, q->hidden_multiplier(), q->hidden_shift(), "hidden");
}

Status check_shapes(const OpCheck& c, const fb::Tensor& x, const fb::Tensor& y, int64_t width) {
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, x));
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, y));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 3, 3));
  if (dim_symbol(x, 2) != -1) return c.fail("input features must be fixed");
  if (rank(y) != 3 || !same_dim(y, 0, x, 0) || !same_dim(y, 1, x, 1) || dim(y, 2) != width) {
    return c.fail("output must be [B, S, %lld]", static_cast<long long>(width));
  }
  if (c.has_input(kMask)) {
    FOCAL_RETURN_IF_ERROR(expect_i32(c, c.input(kMask)));
    if (rank(c.input(kMask)) != 2 || !same_dim(c.input(kMask), 0, x, 0) || !same_dim(c.input(kMask), 1, x, 1)) {
      return c.fail("mask must be [B, S]");
    }
  }
  return Status();
}

Status check_recurrent_int8(const OpCheck& c) {
  const fb::RecurrentOptions& o = *c.op.options_as_RecurrentOptions();
  if (o.cell() != fb::RecurrentCell_Lstm && o.cell() != fb::RecurrentCell_Gru) return c.fail("unknown cell");
  if (o.hidden() < 1) return c.fail("hidden < 1");
  if (c.has_input(kH0) || c.has_input(kC0) || c.output_count() > 1) {
    return c.fail("an int8 recurrent layer starts from zeros and outputs y only (no h0, c0, h_n, c_n)");
  }
  const fb::Tensor& x = c.input(kX);
  const int64_t hidden = o.hidden();
  FOCAL_RETURN_IF_ERROR(check_shapes(c, x, c.output(0), (o.bidirectional() ? 2 : 1) * hidden));
  FOCAL_RETURN_IF_ERROR(check_quantized(c, o));
  const int64_t rows = gate_count(o) * hidden;
  FOCAL_RETURN_IF_ERROR(check_direction(c, *o.quantized(), 0, kWih, dim(x, 2), rows, hidden));
  if (o.bidirectional()) return check_direction(c, *o.quantized(), 1, kWihR, dim(x, 2), rows, hidden);
  if (c.has_input(kWihR) || c.has_input(kWhhR)) return c.fail("reverse weights given to a unidirectional layer");
  return Status();
}

size_t recurrent_int8_workspace(const fb::Model& model, const fb::Op& op, int) {
  const int64_t batch = model.tensors()->Get(op.inputs()->Get(kX))->shape()->Get(0);
  const fb::RecurrentOptions& o = *op.options_as_RecurrentOptions();
  return regions(batch, o.hidden(), gate_count(o)).end;
}

struct Direction {
  bool gru;
  kernels::QGemvParams input, hidden;
  kernels::QGemvParams hidden_n;  // GRU: the recurrent product's n rows (hidden's first 2H rows stay in it)
  kernels::QLstmCellParams cell;
  kernels::QGruCellParams gru_cell;
  size_t in, width, offset;  // x features, y's row width, this direction's column
  int16_t* gates;
  int16_t* c;  // the LSTM's cell, the GRU's Q0.15 h
  int8_t* h;
  int16_t* n;  // GRU: W_hn h + b_hn
};

// Row `b` of length `length` of one direction, its steps in time order or reversed.
void run_row(const Direction& d, const int8_t* x, size_t seq, size_t length, bool reverse, int8_t* y) {
  const size_t H = d.cell.hidden;
  std::memset(d.c, 0, H * 2);
  std::memset(d.h, d.cell.hidden_zero_point, H);
  for (size_t t = length; t < seq; ++t) std::memset(y + t * d.width + d.offset, d.cell.hidden_zero_point, H);
  const kernels::QIntKernelTable& k = kernels::qint_kernels();
  for (size_t i = 0; i < length; ++i) {
    const size_t t = reverse ? length - 1 - i : i;
    std::memset(d.gates, 0, d.input.n * 2);
    kernels::qgemv_s16_accumulate(k, d.input, x + t * d.in, d.gates);
    kernels::qgemv_s16_accumulate(k, d.hidden, d.h, d.gates);
    if (d.gru) {
      std::memset(d.n, 0, H * 2);
      kernels::qgemv_s16_accumulate(k, d.hidden_n, d.h, d.n);
      kernels::qgru_cell(d.gru_cell, d.gates, d.n, d.c, d.h);
    } else {
      kernels::qlstm_cell(d.cell, d.gates, d.c, d.h);
    }
    std::memcpy(y + t * d.width + d.offset, d.h, H);
  }
}

// The rows [first, first + count) of a GEMV.
kernels::QGemvParams gemv_rows(kernels::QGemvParams p, size_t first, size_t count) {
  p.w += first * p.w_stride;
  p.bias += first;
  p.multiplier += first;
  p.shift += first;
  p.n = count;
  return p;
}

Status run_recurrent_int8(const OpRun& r) {
  const fb::RecurrentOptions& o = r.options<fb::RecurrentOptions>();
  const fb::RecurrentQuantization& q = *o.quantized();
  const Shape& xs = r.inputs[kX].shape;
  const size_t batch = size_t(xs.dims[0]), seq = size_t(xs.dims[1]), in = size_t(xs.dims[2]);
  const size_t H = size_t(o.hidden()), dirs = o.bidirectional() ? 2 : 1, G = size_t(gate_count(o));
  uint8_t* ws = static_cast<uint8_t*>(r.workspace);
  const Regions reg = regions(int64_t(batch), int64_t(H), int64_t(G));
  int32_t* lengths = reinterpret_cast<int32_t*>(ws + reg.lengths);
  if (r.inputs[kMask].present()) {
    FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[kMask].i32(), batch, seq, "mask", lengths));
  } else {
    for (size_t b = 0; b < batch; ++b) lengths[b] = static_cast<int32_t>(seq);
  }
  for (size_t dir = 0; dir < dirs; ++dir) {
    const int base = dir == 0 ? kWih : kWihR;
    Direction d;
    d.gru = G == 3;
    d.input = gemv_params(*q.input_to_gates()->Get(uint32_t(dir)), r.inputs[base].data, G * H, in);
    d.hidden = gemv_params(*q.hidden_to_gates()->Get(uint32_t(dir)), r.inputs[base + 1].data, G * H, H);
    if (d.gru) {
      d.hidden_n = gemv_rows(d.hidden, 2 * H, H);
      d.hidden = gemv_rows(d.hidden, 0, 2 * H);
    }
    d.cell.hidden = H;
    d.cell.cell_frac_bits = q.cell_frac_bits();
    d.cell.hidden_multiplier = q.hidden_multiplier();
    d.cell.hidden_shift = q.hidden_shift();
    d.cell.hidden_zero_point = activation_quant(*r.outputs[0].tensor).zero_point;
    d.gru_cell.hidden = H;
    d.gru_cell.hidden_multiplier = q.hidden_multiplier();
    d.gru_cell.hidden_shift = q.hidden_shift();
    d.gru_cell.hidden_zero_point = d.cell.hidden_zero_point;
    d.in = in, d.width = dirs * H, d.offset = dir * H;
    d.gates = reinterpret_cast<int16_t*>(ws + reg.gates);
    d.c = reinterpret_cast<int16_t*>(ws + reg.cell);
    d.h = reinterpret_cast<int8_t*>(ws + reg.h);
    d.n = reinterpret_cast<int16_t*>(ws + reg.hidden_n);
    for (size_t b = 0; b < batch; ++b) {
      run_row(d, static_cast<const int8_t*>(r.inputs[kX].data) + b * seq * in, seq, size_t(lengths[b]), dir == 1,
              static_cast<int8_t*>(r.outputs[0].data) + b * seq * d.width);
    }
  }
  return Status();
}

}  // namespace

const OpDef& recurrent_int8_op_def() {
  constexpr uint32_t kOptional = (1u << kMask) | (1u << kBih) | (1u << kBhh) | (1u << kWihR) | (1u << kWhhR) |
                                 (1u << kBihR) | (1u << kBhhR) | (1u << kH0) | (1u << kC0);
  static const OpDef def = {"Recurrent", kSlots, kSlots, 3, check_recurrent_int8, run_recurrent_int8,
                            recurrent_int8_workspace, kOptional, 1};
  return def;
}

}  // namespace focal
