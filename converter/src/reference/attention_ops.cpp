// Attention in double: the Attention op on projected q, k, v, and the fused
// MultiHeadAttention op (projections, RoPE, KV cache or precomputed states, key mask,
// causal mask, grouped-query heads, output projection). Semantics: schema/focal.fbs.
//
//   out[b, i, h] = sum_j softmax_j(scale * q[b, i, h] . k[b, j, g]) v[b, j, g]
//   g = h / (heads / kv_heads); key j visible when j < length[b] and, causal,
//   j <= i + kv_len - q_len. A query that sees no key gives zeros. T5's relative position
//   bias adds rows[h, L - 1 + j - (i + kv_len - q_len)] to the score (rows [H, 2L - 1]).
#include <cmath>
#include <vector>

#include "focal/internal/half.h"
#include "focal/internal/int8_row.h"
#include "reference/reference_ops.h"

namespace focal {
namespace reference {
namespace {

// Heads laid out [batch, seq, heads * head_dim]: strides in values.
struct Rows {
  const double* data;
  size_t batch_stride;
  size_t seq_stride;
};

struct Sdpa {
  size_t batch, heads, kv_heads, q_len, kv_len, head_dim;
  double scale;  // already resolved (0 in the options: 1/sqrt(head_dim))
  bool causal;
  const std::vector<int64_t>* key_lengths;  // null: every key valid
  Rows q, k, v;
  double* out;  // q's layout
  const double* relative = nullptr;  // [H, relative_length] by distance; null: none
  size_t relative_length = 0;
};

double relative_bias(const Sdpa& p, size_t h, size_t i, size_t j, int64_t offset) {
  if (p.relative == nullptr) return 0.0;
  const int64_t center = static_cast<int64_t>(p.relative_length / 2);
  const int64_t distance = static_cast<int64_t>(j) - static_cast<int64_t>(i) - offset;
  return p.relative[h * p.relative_length + static_cast<size_t>(center + distance)];
}

void attend(const Sdpa& p) {
  const size_t group = p.heads / p.kv_heads;
  const int64_t offset = static_cast<int64_t>(p.kv_len) - static_cast<int64_t>(p.q_len);
  std::vector<double> weights(p.kv_len);
  for (size_t b = 0; b < p.batch; ++b) {
    const size_t valid = p.key_lengths ? static_cast<size_t>((*p.key_lengths)[b]) : p.kv_len;
    for (size_t h = 0; h < p.heads; ++h) {
      const size_t g = h / group;
      for (size_t i = 0; i < p.q_len; ++i) {
        const double* q = p.q.data + b * p.q.batch_stride + i * p.q.seq_stride + h * p.head_dim;
        size_t end = valid < p.kv_len ? valid : p.kv_len;
        if (p.causal) {
          const int64_t last = static_cast<int64_t>(i) + offset;  // the last key seen
          if (last + 1 < static_cast<int64_t>(end)) end = last + 1 < 0 ? 0 : static_cast<size_t>(last + 1);
        }
        for (size_t j = 0; j < end; ++j) {
          const double* k = p.k.data + b * p.k.batch_stride + j * p.k.seq_stride + g * p.head_dim;
          double dot = 0.0;
          for (size_t d = 0; d < p.head_dim; ++d) dot += q[d] * k[d];
          weights[j] = dot * p.scale + relative_bias(p, h, i, j, offset);
        }
        softmax_prefix(weights.data(), end, p.kv_len);
        double* out = p.out + b * p.q.batch_stride + i * p.q.seq_stride + h * p.head_dim;
        for (size_t d = 0; d < p.head_dim; ++d) out[d] = 0.0;
        for (size_t j = 0; j < end; ++j) {
          const double* v = p.v.data + b * p.v.batch_stride + j * p.v.seq_stride + g * p.head_dim;
          for (size_t d = 0; d < p.head_dim; ++d) out[d] += weights[j] * v[d];
        }
      }
    }
  }
}

double resolved_scale(float scale, int head_dim) {
  return scale > 0.0f ? static_cast<double>(scale) : 1.0 / std::sqrt(static_cast<double>(head_dim));
}

// ---- MultiHeadAttention ------------------------------------------------------------

enum Slot { kX = 0, kWq, kBq, kWk, kBk, kWv, kBv, kWo, kBo, kKeyMask, kKState, kVState, kMemory, kRelativeBias = 15, kQNorm, kKNorm };

// Pair k's inverse frequency: the stored table's (Llama 3's rope_scaling; its length
// is checked when the engine loads the model), else theta's.
double inverse_frequency(const fb::MultiHeadAttentionOptions& o, size_t k, size_t rotary) {
  const flatbuffers::Vector<float>* table = o.rope_inv_freq();
  if (table != nullptr && k < table->size()) return static_cast<double>(table->Get(static_cast<flatbuffers::uoffset_t>(k)));
  return std::pow(static_cast<double>(o.rope_theta()), -static_cast<double>(2 * k) / static_cast<double>(rotary));
}

// Rotary position embedding of `seq` positions starting at `first`, in place, on
// [batch, seq, heads, head_dim] rows (batch_stride values between batch rows). Pair k
// turns by position * inverse_frequency(k): half-split pairs k with k + r/2,
// interleaved 2k with 2k + 1; dims past rotary_dim are left.
void rope(const fb::MultiHeadAttentionOptions& o, double* x, size_t batch, size_t seq, size_t heads,
          size_t batch_stride, int64_t first) {
  const size_t head_dim = static_cast<size_t>(o.head_dim());
  const size_t rotary = o.rotary_dim() != 0 ? static_cast<size_t>(o.rotary_dim()) : head_dim, half = rotary / 2;
  const bool interleaved = o.rope() == fb::RopeLayout_Interleaved;
  for (size_t b = 0; b < batch; ++b) {
    for (size_t s = 0; s < seq; ++s) {
      const double position = static_cast<double>(first + static_cast<int64_t>(s));
      for (size_t h = 0; h < heads; ++h) {
        double* head = x + b * batch_stride + (s * heads + h) * head_dim;
        for (size_t k = 0; k < half; ++k) {
          const double angle = position * inverse_frequency(o, k, rotary);
          const size_t i = interleaved ? 2 * k : k, j = interleaved ? 2 * k + 1 : k + half;
          const double xi = head[i], xj = head[j];
          head[i] = xi * std::cos(angle) - xj * std::sin(angle);
          head[j] = xj * std::cos(angle) + xi * std::sin(angle);
        }
      }
    }
  }
}

// Qwen3's q or k norm (slot kQNorm or kKNorm), in place on `heads` contiguous rows of
// head_dim values: x / sqrt(mean(x^2) + epsilon) * norm; nothing without it.
void head_norm(const OpContext& c, int slot, double* x, size_t heads) {
  if (!c.has_input(slot)) return;
  const fb::MultiHeadAttentionOptions& o = *c.op.options_as_MultiHeadAttentionOptions();
  const size_t head_dim = static_cast<size_t>(o.head_dim());
  const double* gamma = c.in(slot).values;
  for (size_t h = 0; h < heads; ++h) {
    double* row = x + h * head_dim;
    double squares = 0.0;
    for (size_t d = 0; d < head_dim; ++d) squares += row[d] * row[d];
    const double inverse = 1.0 / std::sqrt(squares / static_cast<double>(head_dim) + static_cast<double>(o.qk_norm_epsilon()));
    for (size_t d = 0; d < head_dim; ++d) row[d] = row[d] * inverse * gamma[d];
  }
}

// Keys and values for one run: where they are, and how many keys there are.
struct KeyValues {
  Rows keys, values;
  size_t kv_len;
  std::vector<double> k, v;  // owned when projected this run
};

// Projected from memory (or x) this run: k, v [B, Sk, Hkv*Dh], RoPE on k from position 0.
void project_key_values(const OpContext& c, size_t kvf, KeyValues* kv) {
  const fb::MultiHeadAttentionOptions& o = *c.op.options_as_MultiHeadAttentionOptions();
  const Operand& source = c.has_input(kMemory) ? c.in(kMemory) : c.in(kX);
  const size_t batch = source.dim(0);
  kv->kv_len = source.dim(1);
  kv->k.resize(batch * kv->kv_len * kvf);
  kv->v.resize(kv->k.size());
  dense_rows(c, c.in(kWk), &c.in(kBk), source.values, source.dim(2), batch * kv->kv_len, kv->k.data(), kvf);
  dense_rows(c, c.in(kWv), &c.in(kBv), source.values, source.dim(2), batch * kv->kv_len, kv->v.data(), kvf);
  head_norm(c, kKNorm, kv->k.data(), batch * kv->kv_len * size_t(o.num_kv_heads()));
  if (o.rope() != fb::RopeLayout_None) {
    rope(o, kv->k.data(), batch, kv->kv_len, size_t(o.num_kv_heads()), kv->kv_len * kvf, 0);
  }
  kv->keys = Rows{kv->k.data(), kv->kv_len * kvf, kvf};
  kv->values = Rows{kv->v.data(), kv->kv_len * kvf, kvf};
}

// One kv head's values as an int8 cache keeps them (schema/focal.fbs): the f32 values
// through the engine's one row quantizer, read back as q * scale; a head with a NaN or
// infinity reads back NaN.
void round_to_int8_steps(double* x, size_t n) {
  std::vector<float> head(n);
  for (size_t d = 0; d < n; ++d) head[d] = static_cast<float>(x[d]);
  std::vector<int8_t> q(n);
  const double scale = quantize_int8_row(head.data(), n, q.data());
  for (size_t d = 0; d < n; ++d) x[d] = q[d] * scale;
}

// This run's keys or values, `tokens` rows `stride` apart, as an f16 or int8 cache
// stores them; f32 states keep them as computed.
void round_to_cache_storage(const fb::Tensor& state, const fb::MultiHeadAttentionOptions& o, double* rows,
                            size_t tokens, size_t stride) {
  const size_t head_dim = size_t(o.head_dim()), features = size_t(o.num_kv_heads()) * head_dim;
  for (size_t t = 0; t < tokens; ++t) {
    double* row = rows + t * stride;
    if (state.dtype() == fb::DType_I8) {
      for (size_t h = 0; h < features; h += head_dim) round_to_int8_steps(row + h, head_dim);
    } else if (state.dtype() == fb::DType_F16) {
      for (size_t i = 0; i < features; ++i) row[i] = half_to_float(float_to_half(static_cast<float>(row[i])));
    }
  }
}

// In the states [B, capacity, Hkv*Dh]: a KV cache gets this run's K and V (RoPE'd at
// their positions) at the cached length and attends over cached + new; precomputed
// states are attended over whole.
void state_key_values(const OpContext& c, size_t kvf, KeyValues* kv) {
  const fb::MultiHeadAttentionOptions& o = *c.op.options_as_MultiHeadAttentionOptions();
  const Operand& x = c.in(kX);
  const Operand& k_state = c.in(kKState);
  const Operand& v_state = c.in(kVState);
  const size_t batch = x.dim(0), q_len = x.dim(1), in = x.dim(2), capacity = k_state.dim(1);
  const bool cache = c.has_input(kWk);
  kv->kv_len = cache ? static_cast<size_t>(c.cached_length) + q_len : capacity;
  if (cache) {
    const size_t first = static_cast<size_t>(c.cached_length);
    for (size_t b = 0; b < batch; ++b) {
      const double* xb = x.values + b * q_len * in;
      dense_rows(c, c.in(kWk), &c.in(kBk), xb, in, q_len, k_state.values + (b * capacity + first) * kvf, kvf);
      dense_rows(c, c.in(kWv), &c.in(kBv), xb, in, q_len, v_state.values + (b * capacity + first) * kvf, kvf);
      head_norm(c, kKNorm, k_state.values + (b * capacity + first) * kvf, q_len * size_t(o.num_kv_heads()));
    }
    if (o.rope() != fb::RopeLayout_None) {
      rope(o, k_state.values + first * kvf, batch, q_len, size_t(o.num_kv_heads()), capacity * kvf, c.cached_length);
    }
    for (size_t b = 0; b < batch; ++b) {
      round_to_cache_storage(*k_state.tensor, o, k_state.values + (b * capacity + first) * kvf, q_len, kvf);
      round_to_cache_storage(*v_state.tensor, o, v_state.values + (b * capacity + first) * kvf, q_len, kvf);
    }
  }
  kv->keys = Rows{k_state.values, capacity * kvf, kvf};
  kv->values = Rows{v_state.values, capacity * kvf, kvf};
}

}  // namespace

// Attention op: q [B, Sq, H*D], k and v [B, Sk, Hkv*D] -> [B, Sq, H*D].
Status attention_op(const OpContext& c) {
  const fb::AttentionOptions& o = *c.op.options_as_AttentionOptions();
  const Operand& q = c.in(0);
  const Operand& k = c.in(1);
  const size_t qf = q.dim(2), kf = k.dim(2);
  Sdpa p{q.dim(0), size_t(o.num_heads()), size_t(o.num_kv_heads()), q.dim(1), k.dim(1), size_t(o.head_dim()),
         resolved_scale(o.scale(), o.head_dim()), o.causal(), nullptr,
         Rows{q.values, q.dim(1) * qf, qf}, Rows{k.values, k.dim(1) * kf, kf},
         Rows{c.in(2).values, k.dim(1) * kf, kf}, c.outputs[0].values};
  attend(p);
  return Status();
}

// Modes (schema): without states K and V are projected from memory (or x); with states
// and wk/wv the states are a KV cache that this run's keys and values are appended to at
// the cached length; with states and no wk/wv the states hold precomputed K and V.
Status multi_head_attention_op(const OpContext& c) {
  const fb::MultiHeadAttentionOptions& o = *c.op.options_as_MultiHeadAttentionOptions();
  const Operand& x = c.in(kX);
  const size_t batch = x.dim(0), q_len = x.dim(1);
  const size_t heads = size_t(o.num_heads()), head_dim = size_t(o.head_dim());
  const size_t qf = heads * head_dim, kvf = size_t(o.num_kv_heads()) * head_dim;
  const bool cache = c.has_input(kKState) && c.has_input(kWk);
  KeyValues kv;
  if (c.has_input(kKState)) {
    state_key_values(c, kvf, &kv);
  } else {
    project_key_values(c, kvf, &kv);
  }
  std::vector<double> q(batch * q_len * qf);
  dense_rows(c, c.in(kWq), &c.in(kBq), x.values, x.dim(2), batch * q_len, q.data(), qf);
  head_norm(c, kQNorm, q.data(), batch * q_len * heads);
  if (o.rope() != fb::RopeLayout_None) rope(o, q.data(), batch, q_len, heads, q_len * qf, cache ? c.cached_length : 0);
  std::vector<int64_t> lengths;
  if (c.has_input(kKeyMask)) FOCAL_RETURN_IF_ERROR(mask_lengths(c.in(kKeyMask), batch, kv.kv_len, "key mask", &lengths));
  std::vector<double> context(q.size());
  Sdpa sdpa{batch, heads, size_t(o.num_kv_heads()), q_len, kv.kv_len, head_dim, resolved_scale(o.scale(), o.head_dim()),
            o.causal(), c.has_input(kKeyMask) ? &lengths : nullptr, Rows{q.data(), q_len * qf, qf}, kv.keys,
            kv.values, context.data()};
  if (c.has_input(kRelativeBias)) {
    sdpa.relative = c.in(kRelativeBias).values;
    sdpa.relative_length = c.in(kRelativeBias).dim(1);
  }
  attend(sdpa);
  dense_rows(c, c.in(kWo), &c.in(kBo), context.data(), qf, batch * q_len, c.outputs[0].values, c.in(kWo).dim(0));
  return Status();
}

}  // namespace reference
}  // namespace focal
