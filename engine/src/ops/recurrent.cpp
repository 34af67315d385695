// Recurrent op: an LSTM or GRU layer over a sequence, one or two directions, ragged rows.
// Per direction, in blocks of up to kBlockSteps steps: one GEMM per row projects the
// block's inputs (gates_x = x W_ih^T + b_ih), then each step does one small GEMM for the
// recurrent part (gates_h = h W_hh^T + b_hh for the B rows) and the fused cell update of
// the rows still running. Blocks keep the workspace independent of the sequence length:
// on a microcontroller, gates_x for a whole 64-step BiLSTM sequence would be 64 KiB.
//
// Workspace: gates_x [B, block, G*H] | gates_h [B, G*H] | h, c [B, H] | lengths [B] i32 |
// the int8 rows of the input or recurrent projection (DenseInt8Dot weights only).
#include <cstring>

#include "focal/internal/graph.h"
#include "ops/op_checks.h"
#include "ops/sequence_mask.h"
#include "support/saturating_size.h"
#include "dispatch/pointwise_dispatch.h"
#include "recurrent/recurrent_kernels.h"

namespace focal {
namespace {

enum Slot { kX = 0, kMask, kWih, kWhh, kBih, kBhh, kWihR, kWhhR, kBihR, kBhhR, kH0, kC0, kSlots };
enum Output { kY = 0, kHn, kCn };

int gate_count(const fb::RecurrentOptions& o) { return o.cell() == fb::RecurrentCell_Lstm ? 4 : 3; }
int directions(const fb::RecurrentOptions& o) { return o.bidirectional() ? 2 : 1; }

Status check_direction(const OpCheck& c, int first_slot, int64_t gates, int64_t in, int64_t hidden) {
  if (!c.has_input(first_slot) || !c.has_input(first_slot + 1)) return c.fail("missing the direction's weights");
  FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, c.input(first_slot), gates, in));
  FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, c.input(first_slot + 1), gates, hidden));
  FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, first_slot + 2, gates));
  return expect_optional_vector(c, first_slot + 3, gates);
}

Status check_state(const OpCheck& c, const fb::Tensor& t, const fb::Tensor& x, int64_t width) {
  FOCAL_RETURN_IF_ERROR(expect_f32(c, t));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, t, 2, 2));
  if (!same_dim(t, 0, x, 0) || dim(t, 1) != width) {
    return c.fail("'%s' must be [B, %lld]", t.name()->c_str(), static_cast<long long>(width));
  }
  return Status();
}

Status check_recurrent(const OpCheck& c) {
  const fb::RecurrentOptions& o = *c.op.options_as_RecurrentOptions();
  if (o.cell() > fb::RecurrentCell_MAX || o.hidden() < 1) return c.fail("unknown cell or hidden < 1");
  const fb::Tensor& x = c.input(kX);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 3, 3));
  if (dim_symbol(x, 2) != -1) return c.fail("input features must be fixed");
  const int64_t hidden = o.hidden(), gates = gate_count(o) * hidden, width = directions(o) * hidden;
  FOCAL_RETURN_IF_ERROR(check_direction(c, kWih, gates, dim(x, 2), hidden));
  if (o.bidirectional()) {
    FOCAL_RETURN_IF_ERROR(check_direction(c, kWihR, gates, dim(x, 2), hidden));
  } else if (c.has_input(kWihR) || c.has_input(kWhhR)) {
    return c.fail("reverse weights given to a unidirectional layer");
  }
  if (c.has_input(kMask)) {
    FOCAL_RETURN_IF_ERROR(expect_i32(c, c.input(kMask)));
    FOCAL_RETURN_IF_ERROR(expect_rank(c, c.input(kMask), 2, 2));
    if (!same_dim(c.input(kMask), 0, x, 0) || !same_dim(c.input(kMask), 1, x, 1)) return c.fail("mask must be [B, S]");
  }
  if (c.has_input(kH0)) FOCAL_RETURN_IF_ERROR(check_state(c, c.input(kH0), x, width));
  if (c.has_input(kC0)) {
    if (o.cell() != fb::RecurrentCell_Lstm) return c.fail("c0 is for LSTM layers");
    FOCAL_RETURN_IF_ERROR(check_state(c, c.input(kC0), x, width));
  }
  const fb::Tensor& y = c.output(kY);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  if (rank(y) != 3 || !same_dim(y, 0, x, 0) || !same_dim(y, 1, x, 1) || dim(y, 2) != width) {
    return c.fail("output must be [B, S, %lld]", static_cast<long long>(width));
  }
  if (c.output_count() > kHn) FOCAL_RETURN_IF_ERROR(check_state(c, c.output(kHn), x, width));
  if (c.output_count() > kCn) {
    if (o.cell() != fb::RecurrentCell_Lstm) return c.fail("a GRU has no cell state output");
    FOCAL_RETURN_IF_ERROR(check_state(c, c.output(kCn), x, width));
  }
  return Status();
}

// Steps whose input projections are computed together: long enough for the GEMM to run
// at speed, short enough to keep RAM small. A constant, so plans do not depend on the CPU.
constexpr int64_t kBlockSteps = 16;

int64_t block_steps(int64_t seq) { return seq < kBlockSteps ? seq : kBlockSteps; }

struct Regions {
  size_t gates_x, gates_h, h, c, lengths, end;
};

Regions regions(int64_t batch, int64_t seq, int64_t gates, int64_t hidden) {
  // Saturating: sizes come from the file (see saturating_size.h).
  const auto floats = [](size_t n) { return saturating_float_bytes(n); };
  Regions r;
  r.gates_x = 0;
  r.gates_h = saturating_add(r.gates_x, floats(saturating_product(batch, block_steps(seq), gates)));
  r.h = saturating_add(r.gates_h, floats(saturating_product(batch, gates)));
  r.c = saturating_add(r.h, floats(saturating_product(batch, hidden)));
  r.lengths = saturating_add(r.c, floats(saturating_product(batch, hidden)));
  r.end = saturating_add(r.lengths, floats(saturating_size(batch)));
  return r;
}

// Input projections run over one block of steps of one row, recurrent ones over the B rows.
size_t projection_scratch_bytes(const fb::Model& model, const fb::Op& op) {
  const int64_t batch = model.tensors()->Get(op.inputs()->Get(kX))->shape()->Get(0);
  const int64_t block = block_steps(model.tensors()->Get(op.inputs()->Get(kX))->shape()->Get(1));
  size_t bytes = 0;
  for (int slot : {kWih, kWhh, kWihR, kWhhR}) {
    const int32_t t = op.inputs()->Get(slot);
    if (t < 0) continue;
    const size_t need =
        packed_dense_workspace_bytes(*model.tensors()->Get(t), slot == kWih || slot == kWihR ? block : batch);
    bytes = need > bytes ? need : bytes;
  }
  return bytes;
}

size_t recurrent_workspace(const fb::Model& model, const fb::Op& op, int) {
  const fb::RecurrentOptions& o = *op.options_as_RecurrentOptions();
  const fb::Tensor& x = *model.tensors()->Get(op.inputs()->Get(kX));
  const size_t end = regions(x.shape()->Get(0), x.shape()->Get(1), gate_count(o) * int64_t(o.hidden()), o.hidden()).end;
  return saturating_add(end, projection_scratch_bytes(model, op));
}

struct Run {
  const OpRun& r;
  const fb::RecurrentOptions& o;
  size_t batch, seq, in, hidden, gates, width;
  size_t block;  // steps per block of input projections (block_steps)
  uint8_t* ws;
  Regions reg;
  const int32_t* lengths;
  DenseScratch scratch;  // after the regions

  float* gates_x() const { return reinterpret_cast<float*>(ws + reg.gates_x); }
  float* gates_h() const { return reinterpret_cast<float*>(ws + reg.gates_h); }
  float* h() const { return reinterpret_cast<float*>(ws + reg.h); }
  float* c() const { return reinterpret_cast<float*>(ws + reg.c); }
  const fb::Tensor& tensor(int slot) const { return *r.inputs[slot].tensor; }
  const float* optional(int slot) const {
    return r.input_count > slot && r.inputs[slot].present() ? r.inputs[slot].f32() : nullptr;
  }
};

// The initial state of direction `d`: its half of h0 / c0, or zeros.
void initial_state(const Run& run, int d) {
  for (size_t b = 0; b < run.batch; ++b) {
    const size_t offset = b * run.width + size_t(d) * run.hidden;
    const float* h0 = run.optional(kH0);
    const float* c0 = run.optional(kC0);
    float* h = run.h() + b * run.hidden;
    float* c = run.c() + b * run.hidden;
    if (h0 != nullptr) std::memcpy(h, h0 + offset, run.hidden * 4); else std::memset(h, 0, run.hidden * 4);
    if (c0 != nullptr) std::memcpy(c, c0 + offset, run.hidden * 4); else std::memset(c, 0, run.hidden * 4);
  }
}

// Step `step` of the current block for row b.
void cell(const Run& run, size_t b, size_t step) {
  const float* gx = run.gates_x() + (b * run.block + step) * run.gates;
  const float* gh = run.gates_h() + b * run.gates;
  float* h = run.h() + b * run.hidden;
  if (run.o.cell() == fb::RecurrentCell_Lstm) {
    kernels::LstmCellParams p;
    p.hidden = run.hidden;
    p.gates_x = gx;
    p.gates_h = gh;
    p.c_prev = run.c() + b * run.hidden;
    p.c = run.c() + b * run.hidden;
    p.h = h;  // h_prev was only read by the gates_h GEMM, already done
    lstm_cell(p, run.r.kernels);
  } else {
    kernels::GruCellParams p;
    p.hidden = run.hidden;
    p.gates_x = gx;
    p.gates_h = gh;
    p.h_prev = h;
    p.h = h;
    gru_cell(p, run.r.kernels);
  }
}

// gates_x[b, i] = x[b, first + i] W_ih^T + b_ih for the block's `steps` steps.
Status project_block(const Run& run, int base, size_t first, size_t steps) {
  for (size_t b = 0; b < run.batch; ++b) {
    const float* x = run.r.inputs[kX].f32() + (b * run.seq + first) * run.in;
    FOCAL_RETURN_IF_ERROR(packed_dense(run.tensor(base), run.r.inputs[base].data, x, steps, run.optional(base + 2),
                                       run.gates_x() + b * run.block * run.gates, 0, run.scratch, run.r.parallel, run.r.kernels));
  }
  return Status();
}

// One time step t (the block's step i) for every row: recurrent GEMM, then the cells.
Status run_step(const Run& run, int d, size_t t, size_t i) {
  const int base = d == 0 ? kWih : kWihR;
  FOCAL_RETURN_IF_ERROR(packed_dense(run.tensor(base + 1), run.r.inputs[base + 1].data, run.h(), run.batch,
                                     run.optional(base + 3), run.gates_h(), 0, run.scratch, nullptr, run.r.kernels));
  float* y = run.r.outputs[kY].mutable_f32();
  for (size_t b = 0; b < run.batch; ++b) {
    float* out = y + (b * run.seq + t) * run.width + size_t(d) * run.hidden;
    if (t >= static_cast<size_t>(run.lengths[b])) {
      std::memset(out, 0, run.hidden * 4);  // past this row's end: the state waits
      continue;
    }
    cell(run, b, i);
    std::memcpy(out, run.h() + b * run.hidden, run.hidden * 4);
  }
  return Status();
}

Status run_direction(const Run& run, int d) {
  const int base = d == 0 ? kWih : kWihR;
  initial_state(run, d);
  // Forward: blocks [0, 16), [16, 32), ...; reverse: the same blocks from the end, each
  // walked backwards.
  for (size_t done = 0; done < run.seq; done += run.block) {
    const size_t steps = run.seq - done < run.block ? run.seq - done : run.block;
    const size_t first = d == 0 ? done : run.seq - done - steps;
    FOCAL_RETURN_IF_ERROR(project_block(run, base, first, steps));
    for (size_t i = 0; i < steps; ++i) {
      const size_t in_block = d == 0 ? i : steps - 1 - i;
      FOCAL_RETURN_IF_ERROR(run_step(run, d, first + in_block, in_block));
    }
  }
  for (int o = kHn; o < run.r.output_count && o <= kCn; ++o) {
    const float* state = o == kHn ? run.h() : run.c();
    for (size_t b = 0; b < run.batch; ++b) {
      std::memcpy(run.r.outputs[o].mutable_f32() + b * run.width + size_t(d) * run.hidden, state + b * run.hidden,
                  run.hidden * 4);
    }
  }
  return Status();
}

Status run_recurrent(const OpRun& r) {
  const fb::RecurrentOptions& o = r.options<fb::RecurrentOptions>();
  const Shape& x = r.inputs[kX].shape;
  const size_t hidden = static_cast<size_t>(o.hidden());
  Run run{r, o, size_t(x.dims[0]), size_t(x.dims[1]), size_t(x.dims[2]), hidden,
          size_t(gate_count(o)) * hidden, size_t(directions(o)) * hidden, size_t(block_steps(x.dims[1])),
          static_cast<uint8_t*>(r.workspace), {}, nullptr, {}};
  run.reg = regions(x.dims[0], x.dims[1], int64_t(run.gates), int64_t(hidden));
  run.scratch = DenseScratch{run.ws + run.reg.end, r.workspace_bytes - run.reg.end};
  int32_t* lengths = reinterpret_cast<int32_t*>(run.ws + run.reg.lengths);
  if (r.inputs[kMask].present()) {
    FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[kMask].i32(), run.batch, run.seq, "mask", lengths));
  } else {
    for (size_t b = 0; b < run.batch; ++b) lengths[b] = static_cast<int32_t>(run.seq);
  }
  run.lengths = lengths;
  for (int d = 0; d < directions(o); ++d) FOCAL_RETURN_IF_ERROR(run_direction(run, d));
  return Status();
}

}  // namespace

const OpDef& recurrent_op_def() {
  constexpr uint32_t kOptional = (1u << kMask) | (1u << kBih) | (1u << kBhh) | (1u << kWihR) | (1u << kWhhR) |
                                 (1u << kBihR) | (1u << kBhhR) | (1u << kH0) | (1u << kC0);
  static const OpDef def = {"Recurrent", kSlots, kSlots, 3, check_recurrent, run_recurrent,
                            recurrent_workspace, kOptional, 1};
  return def;
}

}  // namespace focal
