// RecurrentStep op: one LSTM/GRU step whose state lives in State tensors and is updated
// in place (a sequence-to-sequence decoder runs one per generated token).
// Workspace: gates_x [B, G*H] | gates_h [B, G*H] | the int8 rows of x or h (DenseInt8Dot
// weights only).
#include <cstring>

#include "focal/internal/graph.h"
#include "ops/op_checks.h"
#include "dispatch/pointwise_dispatch.h"
#include "support/saturating_size.h"
#include "recurrent/recurrent_kernels.h"

namespace focal {
namespace {

enum Slot { kX = 0, kWih, kWhh, kBih, kBhh, kH, kC, kSlots };

int gate_count(const fb::RecurrentStepOptions& o) { return o.cell() == fb::RecurrentCell_Lstm ? 4 : 3; }

Status check_state(const OpCheck& c, int slot, const fb::Tensor& x, int64_t hidden) {
  const fb::Tensor& t = c.input(slot);
  if (t.role() != fb::TensorRole_State) return c.fail("'%s' must be a state", t.name()->c_str());
  FOCAL_RETURN_IF_ERROR(expect_f32(c, t));
  if (rank(t) != 2 || !same_dim(t, 0, x, 0) || dim(t, 1) != hidden) {
    return c.fail("'%s' must be [B, %lld]", t.name()->c_str(), static_cast<long long>(hidden));
  }
  return Status();
}

Status check_step(const OpCheck& c) {
  const fb::RecurrentStepOptions& o = *c.op.options_as_RecurrentStepOptions();
  if (o.cell() > fb::RecurrentCell_MAX || o.hidden() < 1) return c.fail("unknown cell or hidden < 1");
  const fb::Tensor& x = c.input(kX);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, x));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, x, 2, 2));
  const int64_t hidden = o.hidden(), gates = gate_count(o) * hidden;
  FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, c.input(kWih), gates, dim(x, 1)));
  FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, c.input(kWhh), gates, hidden));
  FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kBih, gates));
  FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kBhh, gates));
  FOCAL_RETURN_IF_ERROR(check_state(c, kH, x, hidden));
  const bool lstm = o.cell() == fb::RecurrentCell_Lstm;
  if (lstm != c.has_input(kC)) return c.fail("an LSTM needs a c state, a GRU has none");
  if (lstm) FOCAL_RETURN_IF_ERROR(check_state(c, kC, x, hidden));
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, y));
  if (rank(y) != 2 || !same_dim(y, 0, x, 0) || dim(y, 1) != hidden) return c.fail("output must be [B, hidden]");
  return Status();
}

size_t step_workspace(const fb::Model& model, const fb::Op& op, int) {
  const fb::RecurrentStepOptions& o = *op.options_as_RecurrentStepOptions();
  const int64_t batch = model.tensors()->Get(op.inputs()->Get(kX))->shape()->Get(0);
  const size_t gates = saturating_mul(2, saturating_float_bytes(saturating_product(batch, gate_count(o), o.hidden())));
  const size_t wih = packed_dense_workspace_bytes(*model.tensors()->Get(op.inputs()->Get(kWih)), batch);
  const size_t whh = packed_dense_workspace_bytes(*model.tensors()->Get(op.inputs()->Get(kWhh)), batch);
  return saturating_add(gates, wih > whh ? wih : whh);
}

const float* optional(const OpRun& r, int slot) {
  return r.input_count > slot && r.inputs[slot].present() ? r.inputs[slot].f32() : nullptr;
}

Status run_step(const OpRun& r) {
  const fb::RecurrentStepOptions& o = r.options<fb::RecurrentStepOptions>();
  const size_t batch = static_cast<size_t>(r.inputs[kX].shape.dims[0]);
  const size_t hidden = static_cast<size_t>(o.hidden()), gates = size_t(gate_count(o)) * hidden;
  float* gates_x = static_cast<float*>(r.workspace);
  float* gates_h = gates_x + align_up(batch * gates, 16);
  uint8_t* scratch_begin = reinterpret_cast<uint8_t*>(gates_h + align_up(batch * gates, 16));
  const DenseScratch scratch{scratch_begin, r.workspace_bytes - size_t(scratch_begin - static_cast<uint8_t*>(r.workspace))};
  const auto weight = [&](int slot) -> const fb::Tensor& { return *r.inputs[slot].tensor; };
  FOCAL_RETURN_IF_ERROR(packed_dense(weight(kWih), r.inputs[kWih].data, r.inputs[kX].f32(), batch,
                                     optional(r, kBih), gates_x, 0, scratch, r.parallel, r.kernels));
  float* h = r.inputs[kH].mutable_f32();
  FOCAL_RETURN_IF_ERROR(packed_dense(weight(kWhh), r.inputs[kWhh].data, h, batch, optional(r, kBhh), gates_h, 0,
                                     scratch, r.parallel, r.kernels));
  float* y = r.outputs[0].mutable_f32();
  if (o.cell() == fb::RecurrentCell_Lstm) {
    kernels::LstmCellParams p;
    p.batch = batch;
    p.hidden = hidden;
    p.gates_x = gates_x;
    p.gates_h = gates_h;
    p.c = r.inputs[kC].mutable_f32();
    if (o.reset_cell()) std::memset(p.c, 0, batch * hidden * sizeof(float));
    p.c_prev = p.c;
    p.h = y;
    lstm_cell(p, r.kernels);
  } else {
    kernels::GruCellParams p;
    p.batch = batch;
    p.hidden = hidden;
    p.gates_x = gates_x;
    p.gates_h = gates_h;
    p.h_prev = h;
    p.h = y;
    gru_cell(p, r.kernels);
  }
  std::memcpy(h, y, batch * hidden * sizeof(float));
  return Status();
}

}  // namespace

const OpDef& recurrent_step_op_def() {
  static const OpDef def = {"RecurrentStep", kC, kSlots, 1, check_step, run_step, step_workspace,
                            (1u << kBih) | (1u << kBhh) | (1u << kC)};
  return def;
}

}  // namespace focal
