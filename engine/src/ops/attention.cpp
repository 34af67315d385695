// Attention op on projected q [B, Sq, H*D], k and v [B, Sk, Hkv*D]; output [B, Sq, H*D].
#include "dispatch/attention_dispatch.h"

#include <cmath>

#include "ops/op_checks.h"
#include "support/saturating_size.h"

namespace focal {
namespace {


Status check_head_layout(const OpCheck& c, const fb::Tensor& t, int heads, int head_dim) {
  FOCAL_RETURN_IF_ERROR(expect_f32(c, t));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, t, 3, 3));
  if (dim(t, 2) != static_cast<int64_t>(heads) * head_dim || dim_symbol(t, 2) != -1) {
    return c.fail("tensor '%s' must have %d x %d = %lld fixed features, found %lld",
                  t.name()->c_str(), heads, head_dim, static_cast<long long>(heads) * head_dim,
                  static_cast<long long>(dim(t, 2)));
  }
  return Status();
}

Status check_attention(const OpCheck& c) {
  const fb::AttentionOptions& o = *c.op.options_as_AttentionOptions();
  if (o.num_heads() < 1 || o.num_kv_heads() < 1 || o.num_heads() % o.num_kv_heads() != 0) {
    return c.fail("num_heads %d must be a positive multiple of num_kv_heads %d",
                  static_cast<int>(o.num_heads()), static_cast<int>(o.num_kv_heads()));
  }
  if (o.head_dim() < 1 || static_cast<size_t>(o.head_dim()) > kMaxAttentionHeadDim) {
    return c.fail("head_dim %d outside 1..%d", static_cast<int>(o.head_dim()), static_cast<int>(kMaxAttentionHeadDim));
  }
  if (!(o.scale() >= 0.0f) || !std::isfinite(o.scale())) {
    return c.fail("scale must be finite and >= 0 (0: 1/sqrt(head_dim))");
  }
  const fb::Tensor& q = c.input(0);
  const fb::Tensor& k = c.input(1);
  const fb::Tensor& v = c.input(2);
  FOCAL_RETURN_IF_ERROR(check_head_layout(c, q, o.num_heads(), o.head_dim()));
  FOCAL_RETURN_IF_ERROR(check_head_layout(c, k, o.num_kv_heads(), o.head_dim()));
  FOCAL_RETURN_IF_ERROR(check_head_layout(c, v, o.num_kv_heads(), o.head_dim()));
  if (!same_dim(q, 0, k, 0) || !same_dim(k, 0, v, 0) || !same_dim(k, 1, v, 1)) {
    return c.fail("q, k and v must share the batch dim, and k and v the sequence dim");
  }
  FOCAL_RETURN_IF_ERROR(expect_f32(c, c.output(0)));
  return expect_same_shape(c, q, c.output(0));
}

// The kernel's description of this op for q [B, Sq, H*D] and k, v [B, Sk, Hkv*D].
AttentionParams make_params(const fb::AttentionOptions& o, int64_t batch, int64_t q_len,
                            int64_t kv_len) {
  AttentionParams p;
  p.batch = static_cast<size_t>(batch);
  p.heads = static_cast<size_t>(o.num_heads());
  p.kv_heads = static_cast<size_t>(o.num_kv_heads());
  p.q_len = static_cast<size_t>(q_len);
  p.kv_len = static_cast<size_t>(kv_len);
  p.head_dim = static_cast<size_t>(o.head_dim());
  p.scale = o.scale();
  p.mask.causal = o.causal();
  p.mask.causal_offset = kv_len - q_len;  // queries are the last q_len positions
  const int64_t q_features = int64_t(o.num_heads()) * o.head_dim();
  const int64_t kv_features = int64_t(o.num_kv_heads()) * o.head_dim();
  p.q_strides = dense_strides(q_len, q_features, o.head_dim());
  p.out_strides = p.q_strides;
  p.k_strides = dense_strides(kv_len, kv_features, o.head_dim());
  p.v_strides = p.k_strides;
  return p;
}

size_t attention_workspace(const fb::Model& model, const fb::Op& op, int workers) {
  const fb::Tensor& q = *model.tensors()->Get(op.inputs()->Get(0));
  const fb::Tensor& k = *model.tensors()->Get(op.inputs()->Get(1));
  const fb::AttentionOptions& o = *op.options_as_AttentionOptions();
  const int64_t batch = q.shape()->Get(0), q_len = q.shape()->Get(1), kv_len = k.shape()->Get(1);
  // Within prefill (q_len > 16) and within decode the workspace grows with every size,
  // so the planned maximum of each mode covers all smaller runs of that mode.
  const int64_t decode_q_len = q_len < 16 ? q_len : 16;
  const size_t prefill = attention_workspace_bytes(make_params(o, batch, q_len, kv_len), workers);
  const size_t decode = attention_workspace_bytes(make_params(o, batch, decode_q_len, kv_len), workers);
  // 0: the kernel refuses these sizes; saturate so the session refuses them at creation.
  if (prefill == 0 || decode == 0) return kSaturatedSize;
  return prefill > decode ? prefill : decode;
}

Status run_attention(const OpRun& r) {
  const Shape& q = r.inputs[0].shape;
  AttentionParams p = make_params(r.options<fb::AttentionOptions>(), q.dims[0], q.dims[1],
                                  r.inputs[1].shape.dims[1]);
  p.q = r.inputs[0].f32();
  p.k = r.inputs[1].f32();
  p.v = r.inputs[2].f32();
  p.out = r.outputs[0].mutable_f32();
  // Validated at load (shapes, heads) and session creation (workspace): cannot fail.
  return focal::run_attention(p, r.workspace, r.workspace_bytes, r.parallel, r.kernels);
}

}  // namespace

const OpDef& attention_op_def() {
  static const OpDef def = {"Attention", 3, 3, 1, check_attention, run_attention,
                            attention_workspace};
  return def;
}

}  // namespace focal
