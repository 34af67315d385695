// Attention op on projected q [B, Sq, H*D], k and v [B, Sk, Hkv*D]; output [B, Sq, H*D].
#include "attention/attention.h"

#include <cmath>

#include "ops/op_checks.h"

namespace focal {
namespace {

constexpr int kMaxHeadDim = 256;

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
  if (o.head_dim() < 1 || o.head_dim() > kMaxHeadDim) {
    return c.fail("head_dim %d outside 1..%d", static_cast<int>(o.head_dim()), kMaxHeadDim);
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

kernels::AttentionStrides packed_strides(const Shape& shape, int head_dim) {
  const size_t features = static_cast<size_t>(shape.dims[2]);
  return {static_cast<size_t>(shape.dims[1]) * features, features, static_cast<size_t>(head_dim)};
}

void run_attention(const OpRun& r) {
  const fb::AttentionOptions& o = *r.op.options_as_AttentionOptions();
  const Shape& q = r.inputs[0].shape;
  const Shape& k = r.inputs[1].shape;
  kernels::AttentionParams p;
  p.batch = static_cast<size_t>(q.dims[0]);
  p.heads = static_cast<size_t>(o.num_heads());
  p.kv_heads = static_cast<size_t>(o.num_kv_heads());
  p.q_len = static_cast<size_t>(q.dims[1]);
  p.kv_len = static_cast<size_t>(k.dims[1]);
  p.head_dim = static_cast<size_t>(o.head_dim());
  p.scale = o.scale() > 0.0f ? o.scale() : 1.0f / std::sqrt(static_cast<float>(o.head_dim()));
  p.causal = o.causal();
  p.causal_offset = static_cast<long>(p.kv_len) - static_cast<long>(p.q_len);
  p.q = packed_strides(q, o.head_dim());
  p.k = packed_strides(k, o.head_dim());
  p.v = packed_strides(r.inputs[2].shape, o.head_dim());
  p.out = packed_strides(r.outputs[0].shape, o.head_dim());
  kernels::attention_f32_reference(p, r.inputs[0].f32(), r.inputs[1].f32(), r.inputs[2].f32(),
                                   r.outputs[0].mutable_f32());
}

}  // namespace

const OpDef& attention_op_def() {
  static const OpDef def = {"Attention", 3, 3, 1, check_attention, run_attention};
  return def;
}

}  // namespace focal
