// Multi-head self-attention on int8 activations (schema MultiHeadAttentionOptions,
// MultiHeadAttentionQuantization; kernels/qint): an encoder layer's attention on
// integers. The Q, K and V projections requantize into int8 (q and k symmetric, v with a
// zero point), each head runs qattention_head (exact int32 scores into Q4.11, a Q0.15
// softmax over the keys the mask and causality leave, the weighted values into the
// context's int8), and the output projection requantizes the context into y.
//
// Workspace, sized at the planned maximum shapes (B batch rows of S tokens):
//   q [B*S, H*Dh], k and v [B*S, Hkv*Dh], context [B*S, H*Dh]   int8
//   lengths [B] i32, key_valid [S] u8, scores [S] i32, seen [S] u8, accumulators [Dh] i32
// qgemm_s8's scratch shares regions that are idle while a projection runs: the context's
// while x is projected into q, k and v, q's while the context is projected into y (each
// region at least qgemm_scratch_bytes of the wider input).
#include "focal/internal/graph.h"
#include "ops/int8_operands.h"
#include "ops/sequence_mask.h"
#include "qint/fixed_point.h"

namespace focal {
namespace {

enum Slot { kX = 0, kWq, kBq, kWk, kBk, kWv, kBv, kWo, kBo, kKeyMask, kFirstUnsupported, kSlots = 18 };

constexpr int64_t kMaxKeys = (int64_t(1) << 16) - 1;  // qattention_head's limit
// The context's sum of Q0.15 weights times (v - z_v) stays below 2^24: a left shift of at
// most 6 keeps its requantization within int32.
constexpr int32_t kMaxContextShift = 6;

struct Dims {
  size_t batch, seq, in, heads, kv_heads, head_dim, out;
  size_t q_features() const { return heads * head_dim; }
  size_t kv_features() const { return kv_heads * head_dim; }
};

Dims dims_of(const fb::Model& model, const fb::Op& op) {
  const fb::MultiHeadAttentionOptions& o = *op.options_as_MultiHeadAttentionOptions();
  const fb::Tensor& x = *model.tensors()->Get(op.inputs()->Get(kX));
  const fb::Tensor& wo = *model.tensors()->Get(op.inputs()->Get(kWo));
  return {static_cast<size_t>(x.shape()->Get(0)), static_cast<size_t>(x.shape()->Get(1)),
          static_cast<size_t>(x.shape()->Get(2)), static_cast<size_t>(o.num_heads()),
          static_cast<size_t>(o.num_kv_heads()), static_cast<size_t>(o.head_dim()),
          static_cast<size_t>(wo.shape()->Get(0))};
}

// Byte offsets of the workspace's regions (4-byte aligned where they hold int32).
struct Layout {
  size_t q, k, v, context, lengths, key_valid, scores, seen, accumulators, total;
};

Layout layout_of(const Dims& d) {
  Layout l{};
  const size_t rows = d.batch * d.seq;
  const size_t packed = kernels::qgemm_scratch_bytes(d.in > d.q_features() ? d.in : d.q_features());
  const size_t q_bytes = rows * d.q_features() > packed ? rows * d.q_features() : packed;
  l.q = 0;  // the workspace's start: 4-byte aligned, as the packed words need
  l.k = static_cast<size_t>(align_up(q_bytes, 4));
  l.v = l.k + rows * d.kv_features();
  l.context = static_cast<size_t>(align_up(l.v + rows * d.kv_features(), 4));
  l.lengths = static_cast<size_t>(align_up(l.context + q_bytes, 4));
  l.scores = l.lengths + d.batch * sizeof(int32_t);
  l.accumulators = l.scores + d.seq * sizeof(int32_t);
  l.key_valid = l.accumulators + d.head_dim * sizeof(int32_t);
  l.seen = l.key_valid + d.seq;
  l.total = l.seen + d.seq;
  return l;
}

// ---- Load-time checks --------------------------------------------------------------

Status check_heads(const OpCheck& c, const fb::MultiHeadAttentionOptions& o) {
  if (o.num_heads() < 1 || o.num_kv_heads() < 1 || o.num_heads() % o.num_kv_heads() != 0) {
    return c.fail("num_heads %d must be a positive multiple of num_kv_heads %d", static_cast<int>(o.num_heads()),
                  static_cast<int>(o.num_kv_heads()));
  }
  if (o.head_dim() < 1 || o.head_dim() > static_cast<int>(kMaxAttentionHeadDim)) {
    return c.fail("head_dim %d outside 1..%zu", static_cast<int>(o.head_dim()), kMaxAttentionHeadDim);
  }
  if (o.rope() != fb::RopeLayout_None) return c.fail("integer attention has no RoPE");
  return Status();
}

// Only self-attention over x with the projections and a key mask: biases are the
// records', and no states, memory, relative bias or q/k norms.
Status check_slots(const OpCheck& c) {
  for (int slot : {kBq, kBk, kBv, kBo}) {
    if (c.has_input(slot)) return c.fail("integer attention's biases are its records' (slot %d given)", slot);
  }
  for (int slot = kFirstUnsupported; slot < c.input_count(); ++slot) {
    if (c.has_input(slot)) return c.fail("integer attention is self-attention without states (slot %d given)", slot);
  }
  if (!c.has_input(kWk) || !c.has_input(kWv)) return c.fail("integer attention projects its own keys and values");
  return Status();
}

// The bit length of n: n <= 2^bits.
int32_t bits_for(size_t n) {
  int32_t bits = 0;
  while ((size_t(1) << bits) < n) ++bits;
  return bits;
}

Status check_records(const OpCheck& c, const fb::MultiHeadAttentionQuantization& q, const Dims& d) {
  const auto qf = static_cast<int64_t>(d.q_features()), kvf = static_cast<int64_t>(d.kv_features());
  FOCAL_RETURN_IF_ERROR(expect_requantization(c, q.q_projection(), "q projection", qf, true, true));
  FOCAL_RETURN_IF_ERROR(expect_requantization(c, q.k_projection(), "k projection", kvf, true, true));
  FOCAL_RETURN_IF_ERROR(expect_requantization(c, q.v_projection(), "v projection", kvf, true, true));
  FOCAL_RETURN_IF_ERROR(
      expect_requantization(c, q.output_projection(), "output projection", static_cast<int64_t>(d.out), true, true));
  for (int32_t zero_point : {q.v_zero_point(), q.context_zero_point()}) {
    if (zero_point < -128 || zero_point > 127) return c.fail("zero point %ld outside [-128, 127]", static_cast<long>(zero_point));
  }
  // |q . k| <= Dh 2^14 <= 2^(bits + 14): shifted left by at most 16 - bits it stays below 2^31.
  FOCAL_RETURN_IF_ERROR(expect_multiplier(c, q.score_multiplier(), q.score_shift(), "score"));
  if (q.score_shift() > 16 - bits_for(d.head_dim)) {
    return c.fail("score shift %ld above %ld for head_dim %zu", static_cast<long>(q.score_shift()),
                  static_cast<long>(16 - bits_for(d.head_dim)), d.head_dim);
  }
  FOCAL_RETURN_IF_ERROR(expect_multiplier(c, q.context_multiplier(), q.context_shift(), "context"));
  if (q.context_shift() > kMaxContextShift) {
    return c.fail("context shift %ld above %d", static_cast<long>(q.context_shift()), static_cast<int>(kMaxContextShift));
  }
  return Status();
}

// x [B, S, in] and wo [out, H*Dh] have had their ranks checked (check_mha_int8, before
// dims_of read their shapes).
Status check_operands(const OpCheck& c, const Dims& d) {
  const fb::Tensor& x = c.input(kX);
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, x));
  FOCAL_RETURN_IF_ERROR(expect_int8_activation(c, y));
  if (dim_symbol(x, 2) != -1) return c.fail("input features must be fixed");
  if (dim(x, 1) > kMaxKeys) return c.fail("integer attention over at most %lld tokens", static_cast<long long>(kMaxKeys));
  const fb::Tensor& wo = c.input(kWo);
  const auto in = static_cast<int64_t>(d.in), qf = static_cast<int64_t>(d.q_features()),
             kvf = static_cast<int64_t>(d.kv_features());
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, c.input(kWq), qf, in));
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, c.input(kWk), kvf, in));
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, c.input(kWv), kvf, in));
  FOCAL_RETURN_IF_ERROR(expect_int8_weight(c, wo, dim(wo, 0), qf));
  FOCAL_RETURN_IF_ERROR(expect_rank(c, y, 3, 3));
  if (!same_dim(y, 0, x, 0) || !same_dim(y, 1, x, 1) || dim(y, 2) != dim(wo, 0)) {
    return c.fail("output must be [B, S, %lld]", static_cast<long long>(dim(wo, 0)));
  }
  if (c.has_input(kKeyMask)) {
    const fb::Tensor& mask = c.input(kKeyMask);
    FOCAL_RETURN_IF_ERROR(expect_i32(c, mask));
    FOCAL_RETURN_IF_ERROR(expect_rank(c, mask, 2, 2));
    if (!same_dim(mask, 0, x, 0) || !same_dim(mask, 1, x, 1)) return c.fail("key mask must be [B, S] of x");
  }
  return Status();
}

Status check_mha_int8(const OpCheck& c) {
  const fb::MultiHeadAttentionOptions& o = *c.op.options_as_MultiHeadAttentionOptions();
  FOCAL_RETURN_IF_ERROR(check_heads(c, o));
  FOCAL_RETURN_IF_ERROR(check_slots(c));
  if (o.quantized() == nullptr) return c.fail("integer attention needs its records");
  FOCAL_RETURN_IF_ERROR(expect_rank(c, c.input(kX), 3, 3));  // before dims_of reads x's shape
  FOCAL_RETURN_IF_ERROR(expect_rank(c, c.input(kWo), 2, 2));
  const Dims d = dims_of(c.model, c.op);
  FOCAL_RETURN_IF_ERROR(check_operands(c, d));
  return check_records(c, *o.quantized(), d);
}

size_t mha_int8_workspace(const fb::Model& model, const fb::Op& op, int) { return layout_of(dims_of(model, op)).total; }

// ---- Run ------------------------------------------------------------------------------

// x rows through one projection into int8 rows of `n` features (zero point `zero_point`).
void project(const fb::Requantization& r, const void* w, size_t n, size_t k, int32_t zero_point, const int8_t* x,
             size_t rows, int8_t* y, uint32_t* packed) {
  kernels::QGemvParams p = gemv_params(r, w, n, k);
  p.output_zero_point = zero_point;
  kernels::qgemm_s8(kernels::qint_kernels(), p, x, rows, y, packed);
}

kernels::QAttentionParams head_params(const fb::MultiHeadAttentionOptions& o, const Dims& d) {
  const fb::MultiHeadAttentionQuantization& q = *o.quantized();
  kernels::QAttentionParams p;
  p.queries = p.keys = d.seq;
  p.head_dim = d.head_dim;
  p.q_stride = p.out_stride = d.q_features();
  p.k_stride = p.v_stride = d.kv_features();
  p.causal = o.causal();
  p.score_multiplier = q.score_multiplier(), p.score_shift = q.score_shift();
  p.v_zero_point = q.v_zero_point();
  p.output_multiplier = q.context_multiplier(), p.output_shift = q.context_shift();
  p.output_zero_point = q.context_zero_point();
  return p;
}

// Every head of batch row b over its first `length` keys.
void attend_row(const kernels::QAttentionParams& p, const Dims& d, const Layout& l, uint8_t* ws, size_t b,
                size_t length) {
  uint8_t* key_valid = ws + l.key_valid;
  for (size_t j = 0; j < d.seq; ++j) key_valid[j] = uint8_t(j < length);
  const kernels::QAttentionScratch scratch{reinterpret_cast<int32_t*>(ws + l.scores), ws + l.seen,
                                           reinterpret_cast<int32_t*>(ws + l.accumulators)};
  const size_t group = d.heads / d.kv_heads;
  const auto* q = reinterpret_cast<const int8_t*>(ws + l.q) + b * d.seq * d.q_features();
  const auto* k = reinterpret_cast<const int8_t*>(ws + l.k) + b * d.seq * d.kv_features();
  const auto* v = reinterpret_cast<const int8_t*>(ws + l.v) + b * d.seq * d.kv_features();
  auto* context = reinterpret_cast<int8_t*>(ws + l.context) + b * d.seq * d.q_features();
  for (size_t h = 0; h < d.heads; ++h) {
    const size_t kv = (h / group) * d.head_dim;
    kernels::qattention_head(kernels::qint_kernels(), p, q + h * d.head_dim, k + kv, v + kv, key_valid, scratch,
                             nullptr, context + h * d.head_dim);
  }
}

Status run_mha_int8(const OpRun& r) {
  const fb::MultiHeadAttentionOptions& o = r.options<fb::MultiHeadAttentionOptions>();
  const fb::MultiHeadAttentionQuantization& q = *o.quantized();
  Dims d = dims_of(r.model, r.op);
  d.batch = static_cast<size_t>(r.inputs[kX].shape.dims[0]);
  d.seq = static_cast<size_t>(r.inputs[kX].shape.dims[1]);
  const Layout l = layout_of(d);  // the run's shapes fit in the planned maximum's workspace
  auto* ws = static_cast<uint8_t*>(r.workspace);
  auto* lengths = reinterpret_cast<int32_t*>(ws + l.lengths);
  const bool masked = r.input_count > kKeyMask && r.inputs[kKeyMask].present();
  if (masked) FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[kKeyMask].i32(), d.batch, d.seq, "key mask", lengths));
  const auto* x = static_cast<const int8_t*>(r.inputs[kX].data);
  const size_t rows = d.batch * d.seq;
  auto* packed = reinterpret_cast<uint32_t*>(ws + l.context);  // idle until the heads run
  project(*q.q_projection(), r.inputs[kWq].data, d.q_features(), d.in, 0, x, rows, reinterpret_cast<int8_t*>(ws + l.q),
          packed);
  project(*q.k_projection(), r.inputs[kWk].data, d.kv_features(), d.in, 0, x, rows, reinterpret_cast<int8_t*>(ws + l.k),
          packed);
  project(*q.v_projection(), r.inputs[kWv].data, d.kv_features(), d.in, q.v_zero_point(), x, rows,
          reinterpret_cast<int8_t*>(ws + l.v), packed);
  const kernels::QAttentionParams p = head_params(o, d);
  for (size_t b = 0; b < d.batch; ++b) attend_row(p, d, l, ws, b, masked ? static_cast<size_t>(lengths[b]) : d.seq);
  project(*q.output_projection(), r.inputs[kWo].data, d.out, d.q_features(),
          activation_quant(*r.outputs[0].tensor).zero_point, reinterpret_cast<const int8_t*>(ws + l.context), rows,
          static_cast<int8_t*>(r.outputs[0].data), reinterpret_cast<uint32_t*>(ws + l.q));  // q: read
  return Status();
}

}  // namespace

const OpDef& multi_head_attention_int8_op_def() {
  constexpr uint32_t kOptional = ~((1u << kX) | (1u << kWq) | (1u << kWo));
  static const OpDef def = {"MultiHeadAttention", kWo + 1, kSlots, 1, check_mha_int8, run_mha_int8,
                            mha_int8_workspace, kOptional};
  return def;
}

}  // namespace focal
