// ScoreAttention op: one decoder step of Bahdanau (additive), Luong (dot, general) or
// concat (one Linear over [s; h_j], with or without tanh) attention over a source, per
// batch row, on the scoring kernels (dispatch/scoring_dispatch.h).
// Workspace: query projection [B, units] (additive) | lengths [B] | kernel scratch.
#include <cmath>

#include "dispatch/scoring_dispatch.h"
#include "focal/internal/graph.h"
#include "ops/op_checks.h"
#include "ops/sequence_mask.h"

namespace focal {
namespace {

enum Slot { kQuery = 0, kKeys, kValues, kMask, kW, kB, kV, kSlots };

bool additive(const fb::Op& op) {
  return op.options_as_ScoreAttentionOptions()->kind() == fb::ScoreKind_Additive;
}

Status check_sequence(const OpCheck& c, const fb::Tensor& t, const fb::Tensor& query) {
  FOCAL_RETURN_IF_ERROR(expect_f32(c, t));
  if (rank(t) != 3 || !same_dim(t, 0, query, 0) || dim_symbol(t, 2) != -1) {
    return c.fail("'%s' must be [B, S, features]", t.name()->c_str());
  }
  return Status();
}

// Only the concat score has an activation, and only none or tanh.
Status check_activation(const OpCheck& c, const fb::ScoreAttentionOptions& o) {
  if (o.kind() == fb::ScoreKind_Concat) {
    if (o.activation() != fb::Activation_None && o.activation() != fb::Activation_Tanh) {
      return c.fail("concat attention's activation must be None or Tanh, not %s",
                    fb::EnumNameActivation(o.activation()));
    }
  } else if (o.activation() != fb::Activation_None) {
    return c.fail("only concat attention takes an activation (this is %s)", fb::EnumNameScoreKind(o.kind()));
  }
  return Status();
}

// A constant f32 w of [rows, cols] (general: [Dq, Dk]; concat: [1, Dq + Dk]).
Status check_matrix_w(const OpCheck& c, const char* what, int64_t rows, int64_t cols) {
  if (!c.has_input(kW)) {
    return c.fail("%s needs w [%lld, %lld]", what, static_cast<long long>(rows), static_cast<long long>(cols));
  }
  const fb::Tensor& w = c.input(kW);
  FOCAL_RETURN_IF_ERROR(expect_constant(c, w));
  FOCAL_RETURN_IF_ERROR(expect_f32(c, w));
  if (rank(w) != 2 || dim(w, 0) != rows || dim(w, 1) != cols) {
    return c.fail("%s: w must be [%lld, %lld]", what, static_cast<long long>(rows), static_cast<long long>(cols));
  }
  return Status();
}

Status check_score(const OpCheck& c) {
  const fb::ScoreAttentionOptions& o = *c.op.options_as_ScoreAttentionOptions();
  if (o.kind() > fb::ScoreKind_MAX || !std::isfinite(o.scale())) return c.fail("unknown kind or bad scale");
  FOCAL_RETURN_IF_ERROR(check_activation(c, o));
  const fb::Tensor& q = c.input(kQuery);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, q));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, q, 2, 2));
  const fb::Tensor& keys = c.input(kKeys);
  const fb::Tensor& values = c.input(kValues);
  FOCAL_RETURN_IF_ERROR(check_sequence(c, keys, q));
  FOCAL_RETURN_IF_ERROR(check_sequence(c, values, q));
  if (!same_dim(keys, 1, values, 1)) return c.fail("keys and values must have the same length");
  if (c.has_input(kMask)) {
    const fb::Tensor& mask = c.input(kMask);
    FOCAL_RETURN_IF_ERROR(expect_i32(c, mask));
    if (rank(mask) != 2 || !same_dim(mask, 0, keys, 0) || !same_dim(mask, 1, keys, 1)) return c.fail("mask must be [B, S]");
  }
  const int64_t dq = dim(q, 1), dk = dim(keys, 2);
  switch (o.kind()) {
    case fb::ScoreKind_Additive:
      if (!c.has_input(kW) || !c.has_input(kV)) return c.fail("additive attention needs w and v");
      FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, c.input(kW), dk, dq));
      FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kB, dk));
      FOCAL_RETURN_IF_ERROR(expect_vector(c, c.input(kV), dk));
      break;
    case fb::ScoreKind_Dot:
      if (dq != dk || c.has_input(kW)) return c.fail("dot attention needs query and key widths equal, no w");
      break;
    case fb::ScoreKind_General:
      FOCAL_RETURN_IF_ERROR(check_matrix_w(c, "general attention", dq, dk));
      break;
    default:
      FOCAL_RETURN_IF_ERROR(check_matrix_w(c, "concat attention", 1, dq + dk));
      FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kB, 1));
      if (c.has_input(kV)) return c.fail("concat attention takes no v (its w is the whole Linear)");
  }
  const fb::Tensor& context = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_f32(c, context));
  if (rank(context) != 2 || !same_dim(context, 0, q, 0) || dim(context, 1) != dim(values, 2)) {
    return c.fail("context must be [B, value features]");
  }
  if (c.output_count() > 1) {
    const fb::Tensor& w = c.output(1);
    FOCAL_RETURN_IF_ERROR(expect_f32(c, w));
    if (rank(w) != 2 || !same_dim(w, 0, keys, 0) || !same_dim(w, 1, keys, 1)) return c.fail("weights must be [B, S]");
  }
  return Status();
}

LuongScore luong_score(fb::ScoreKind kind) {
  return kind == fb::ScoreKind_Dot ? LuongScore::kDot : kind == fb::ScoreKind_General ? LuongScore::kGeneral : LuongScore::kConcat;
}

size_t floats(int64_t n) { return static_cast<size_t>(align_up(static_cast<uint64_t>(n) * 4, 64)); }

size_t kernel_bytes(const fb::Model& model, const fb::Op& op) {
  const auto tensor = [&](int slot) -> const fb::Tensor& { return *model.tensors()->Get(op.inputs()->Get(slot)); };
  const int64_t src = tensor(kKeys).shape()->Get(1), dk = tensor(kKeys).shape()->Get(2);
  const int64_t dv = tensor(kValues).shape()->Get(2), dq = tensor(kQuery).shape()->Get(1);
  if (additive(op)) {
    AdditiveAttentionParams p;
    p.src_len = size_t(src);
    p.units = size_t(dk);
    p.value_dim = size_t(dv);
    return additive_attention_workspace_bytes(p);
  }
  LuongAttentionParams p;
  p.score = luong_score(op.options_as_ScoreAttentionOptions()->kind());
  p.tanh = op.options_as_ScoreAttentionOptions()->activation() == fb::Activation_Tanh;
  p.src_len = size_t(src);
  p.query_dim = size_t(dq);
  p.key_dim = size_t(dk);
  p.value_dim = size_t(dv);
  return luong_attention_workspace_bytes(p);
}

// The kernel's scratch, also the query projection's int8 rows (used before the kernel runs).
size_t score_workspace(const fb::Model& model, const fb::Op& op, int) {
  const fb::Tensor& keys = *model.tensors()->Get(op.inputs()->Get(kKeys));
  const int64_t batch = keys.shape()->Get(0);
  const size_t kernel = kernel_bytes(model, op);
  const size_t projection =
      additive(op) ? packed_dense_workspace_bytes(*model.tensors()->Get(op.inputs()->Get(kW)), batch) : 0;
  return floats(batch * keys.shape()->Get(2)) + floats(batch) + (kernel > projection ? kernel : projection);
}

Status run_score(const OpRun& r) {
  const fb::ScoreAttentionOptions& o = r.options<fb::ScoreAttentionOptions>();
  const Shape& keys = r.inputs[kKeys].shape;
  const size_t batch = size_t(keys.dims[0]), src = size_t(keys.dims[1]), dk = size_t(keys.dims[2]);
  const size_t dq = size_t(r.inputs[kQuery].shape.dims[1]), dv = size_t(r.inputs[kValues].shape.dims[2]);
  uint8_t* ws = static_cast<uint8_t*>(r.workspace);
  float* query_proj = reinterpret_cast<float*>(ws);
  int32_t* lengths = reinterpret_cast<int32_t*>(ws + floats(int64_t(batch * dk)));
  uint8_t* scratch = ws + floats(int64_t(batch * dk)) + floats(int64_t(batch));
  const size_t scratch_bytes = r.workspace_bytes - size_t(scratch - ws);
  const bool has_mask = r.input_count > kMask && r.inputs[kMask].present();
  if (has_mask) FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[kMask].i32(), batch, src, "mask", lengths));
  const float* bias = r.input_count > kB && r.inputs[kB].present() ? r.inputs[kB].f32() : nullptr;
  if (o.kind() == fb::ScoreKind_Additive) {
    const fb::Tensor& w = *r.inputs[kW].tensor;
    FOCAL_RETURN_IF_ERROR(packed_dense(w, r.inputs[kW].data, r.inputs[kQuery].f32(), batch, bias, query_proj, 0,
                                       DenseScratch{scratch, scratch_bytes}, r.parallel, r.kernels));
  }
  float* weights = r.output_count > 1 ? r.outputs[1].mutable_f32() : nullptr;
  for (size_t b = 0; b < batch; ++b) {
    const int32_t length = has_mask ? lengths[b] : -1;
    const float* values = r.inputs[kValues].f32() + b * src * dv;
    float* context = r.outputs[0].mutable_f32() + b * dv;
    float* row_weights = weights != nullptr ? weights + b * src : nullptr;
    if (o.kind() == fb::ScoreKind_Additive) {
      AdditiveAttentionParams p;
      p.src_len = src;
      p.units = dk;
      p.value_dim = dv;
      p.key_length = length;
      p.query_proj = query_proj + b * dk;
      p.keys_proj = r.inputs[kKeys].f32() + b * src * dk;
      p.v = r.inputs[kV].f32();
      p.values = values;
      p.context = context;
      p.weights = row_weights;
      FOCAL_RETURN_IF_ERROR(run_additive_attention(p, scratch, scratch_bytes, r.kernels));
    } else {
      LuongAttentionParams p;
      p.score = luong_score(o.kind());
      p.tanh = o.activation() == fb::Activation_Tanh;
      p.src_len = src;
      p.query_dim = dq;
      p.key_dim = dk;
      p.value_dim = dv;
      p.key_length = length;
      p.scale = o.scale();
      p.query = r.inputs[kQuery].f32() + b * dq;
      p.w = o.kind() != fb::ScoreKind_Dot ? r.inputs[kW].f32() : nullptr;
      p.bias = o.kind() == fb::ScoreKind_Concat ? bias : nullptr;
      p.keys = r.inputs[kKeys].f32() + b * src * dk;
      p.values = values;
      p.context = context;
      p.weights = row_weights;
      FOCAL_RETURN_IF_ERROR(run_luong_attention(p, scratch, scratch_bytes, r.kernels));
    }
  }
  return Status();
}

}  // namespace

const OpDef& score_attention_op_def() {
  static const OpDef def = {"ScoreAttention", kValues + 1, kSlots, 2, check_score, run_score, score_workspace,
                            (1u << kMask) | (1u << kW) | (1u << kB) | (1u << kV), 1};
  return def;
}

}  // namespace focal
