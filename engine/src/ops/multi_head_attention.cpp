// Fused multi-head attention: Q/K/V projections on the packed GEMM kernels, RoPE,
// tiled attention (dispatch/attention_dispatch.h) and the output projection, as one op. Slots and
// modes are described at MultiHeadAttentionOptions in schema/focal.fbs.
//
// Workspace, each region 64-byte aligned, sized at the planned maximum shapes:
//   q    [B, Sq, H*Dh]     queries
//   k, v [B, Sk, Hkv*Dh]   projected keys and values (only without states)
//   ctx  [B, Sq, H*Dh]     attention output, the input of the output projection
//   lengths [B] i32        valid keys per batch row (from the key mask)
//   new_k, new_v [B, Sq, Hkv*Dh]  this run's K and V in f32 before an f16 or int8 cache
//                          stores them (only with such a cache)
//   attention kernel scratch, shared with the projections' int8 rows (DenseInt8Dot
//   weights: the projections run before and after the attention kernel, never during)
#include <cmath>

#include "attention/kv_storage.h"
#include "attention/kv_store.h"
#include "dispatch/attention_dispatch.h"
#include "focal/internal/graph.h"
#include "ops/op_checks.h"
#include "ops/sequence_mask.h"
#include "dispatch/pointwise_dispatch.h"
#include "position/position_kernels.h"
#include "support/saturating_size.h"

namespace focal {
namespace {

enum Slot {
  kX = 0, kWq, kBq, kWk, kBk, kWv, kBv, kWo, kBo, kKeyMask, kKState, kVState, kMemory, kKScales, kVScales,
  kRelativeBias, kQNorm, kKNorm, kSlots
};

enum class Mode {
  kProject,      // K, V projected from x (or memory) every run
  kCache,        // K, V of the new tokens appended to the states (decoder self-attention)
  kPrecomputed,  // the states hold K, V (cross-attention, filled by an earlier stage)
};

bool present(const fb::Op& op, int slot) {
  return static_cast<int>(op.inputs()->size()) > slot && op.inputs()->Get(slot) >= 0;
}

Mode mode_of(const fb::Op& op) {
  if (!present(op, kKState)) return Mode::kProject;
  return present(op, kWk) ? Mode::kCache : Mode::kPrecomputed;
}

const fb::Tensor& tensor_at(const fb::Model& model, const fb::Op& op, int slot) {
  return *model.tensors()->Get(op.inputs()->Get(slot));
}

// How the KV cache stores K and V (the states' dtype; f32 without a cache).
KvType cache_type(const fb::Model& model, const fb::Op& op) {
  if (mode_of(op) != Mode::kCache) return KvType::kF32;
  const fb::DType dtype = tensor_at(model, op, kKState).dtype();
  return dtype == fb::DType_F16 ? KvType::kF16 : dtype == fb::DType_I8 ? KvType::kI8 : KvType::kF32;
}

// ---- Load-time checks --------------------------------------------------------------

// A stored frequency table (Llama 3's rope_scaling): none, or, with a rope layout, one
// finite, positive frequency for each of the `pairs` rotated pairs (0 without rope). One
// message for every case: this check is in every firmware that links the op.
Status check_rope_table(const OpCheck& c, const flatbuffers::Vector<float>* table, int pairs) {
  if (table == nullptr) return Status();
  bool valid = pairs > 0 && static_cast<int>(table->size()) == pairs;
  for (const float f : *table) valid = valid && f > 0.0f && f <= 1.0f;
  if (!valid) return c.fail("rope_inv_freq must be rotary_dim / 2 = %d entries in (0, 1], with rope", pairs);
  return Status();
}

Status check_options(const OpCheck& c, const fb::MultiHeadAttentionOptions& o) {
  if (o.num_heads() < 1 || o.num_kv_heads() < 1 || o.num_heads() % o.num_kv_heads() != 0) {
    return c.fail("num_heads %d must be a positive multiple of num_kv_heads %d",
                  static_cast<int>(o.num_heads()), static_cast<int>(o.num_kv_heads()));
  }
  if (o.head_dim() < 1 || o.head_dim() > static_cast<int>(kMaxAttentionHeadDim)) {
    return c.fail("head_dim %d outside 1..%zu", static_cast<int>(o.head_dim()), kMaxAttentionHeadDim);
  }
  if (!(o.scale() >= 0.0f) || !std::isfinite(o.scale())) {
    return c.fail("scale must be finite and >= 0 (0: 1/sqrt(head_dim))");
  }
  if (o.rope() > fb::RopeLayout_MAX) return c.fail("unknown rope layout");
  if (o.rope() != fb::RopeLayout_None) {
    const int rotary = o.rotary_dim() != 0 ? o.rotary_dim() : o.head_dim();
    // theta >= 1 keeps every inverse frequency 1 / theta^(2k/r) in (0, 1], so an angle
    // is at most its position: a tiny theta (1e-45) made them overflow, and sin and cos
    // of such angles are undefined in xsimd's range reduction.
    if (rotary < 2 || rotary % 2 != 0 || rotary > o.head_dim() || !(o.rope_theta() >= 1.0f) ||
        !std::isfinite(o.rope_theta())) {
      return c.fail("rotary_dim %d must be even and <= head_dim, rope_theta finite and >= 1, found %g",
                    static_cast<int>(o.rotary_dim()), static_cast<double>(o.rope_theta()));
    }
    return check_rope_table(c, o.rope_inv_freq(), rotary / 2);
  }
  return check_rope_table(c, o.rope_inv_freq(), 0);
}

// [B, S, features] with x's batch, any dtype.
Status check_sequence_shape(const OpCheck& c, const fb::Tensor& t, const fb::Tensor& x) {
  FOCAL_RETURN_IF_ERROR(expect_rank(c, t, 3, 3));
  if (!same_dim(t, 0, x, 0) || dim_symbol(t, 2) != -1) {
    return c.fail("'%s' must be [B, S, features] with x's batch and fixed features",
                  t.name()->c_str());
  }
  return Status();
}

Status check_sequence(const OpCheck& c, const fb::Tensor& t, const fb::Tensor& x) {
  FOCAL_RETURN_IF_ERROR(expect_f32(c, t));
  return check_sequence_shape(c, t, x);
}

// An int8 cache's scales: f32 states [B, Lmax, Hkv], one per token and kv head.
Status check_cache_scales(const OpCheck& c, const fb::MultiHeadAttentionOptions& o) {
  for (int slot : {kKScales, kVScales}) {
    if (!c.has_input(slot)) return c.fail("an int8 KV cache needs k and v scale states");
    const fb::Tensor& t = c.input(slot);
    const fb::Tensor& cache = c.input(slot == kKScales ? kKState : kVState);
    if (t.role() != fb::TensorRole_State) return c.fail("'%s' must be a state", t.name()->c_str());
    FOCAL_RETURN_IF_ERROR(expect_f32(c, t));
    FOCAL_RETURN_IF_ERROR(check_sequence_shape(c, t, cache));
    if (!same_dim(t, 1, cache, 1) || dim(t, 2) != o.num_kv_heads()) {
      return c.fail("scales '%s' must be [B, Lmax, %d] of its cache", t.name()->c_str(),
                    static_cast<int>(o.num_kv_heads()));
    }
  }
  return Status();
}

// K and V states of one dtype: f32 always; f16, or int8 with scale states, only for a
// KV cache (the op stores this run's keys in it; precomputed states are written by
// other ops, in f32).
Status check_cache_storage(const OpCheck& c, const fb::MultiHeadAttentionOptions& o) {
  const bool states = c.has_input(kKState) && c.has_input(kVState);
  const fb::DType dtype = states ? c.input(kKState).dtype() : fb::DType_F32;
  if (states && c.input(kVState).dtype() != dtype) return c.fail("k and v states differ in dtype");
  if (dtype != fb::DType_F32 && (mode_of(c.op) != Mode::kCache || (dtype != fb::DType_F16 && dtype != fb::DType_I8))) {
    return c.fail("states must be f32, or f16 or i8 for a KV cache (found %s)", fb::EnumNameDType(dtype));
  }
  if (dtype == fb::DType_I8) return check_cache_scales(c, o);
  if (c.has_input(kKScales) || c.has_input(kVScales)) return c.fail("scale states belong to an int8 KV cache");
  return Status();
}

Status check_states(const OpCheck& c, const fb::Tensor& x, int64_t kv_features) {
  for (int slot : {kKState, kVState}) {
    if (!c.has_input(slot)) return c.fail("k and v states come together");
    const fb::Tensor& s = c.input(slot);
    if (s.role() != fb::TensorRole_State) return c.fail("'%s' must be a state", s.name()->c_str());
    FOCAL_RETURN_IF_ERROR(check_sequence_shape(c, s, x));
    if (dim(s, 2) != kv_features) {
      return c.fail("state '%s' must have %lld features", s.name()->c_str(),
                    static_cast<long long>(kv_features));
    }
  }
  if (!same_dim(c.input(kKState), 1, c.input(kVState), 1)) return c.fail("k and v states differ in length");
  return Status();
}

Status check_key_source(const OpCheck& c, const fb::MultiHeadAttentionOptions& o, const fb::Tensor& x,
                        int64_t kv_features) {
  const Mode mode = mode_of(c.op);
  if (c.has_input(kWk) != c.has_input(kWv)) return c.fail("wk and wv come together");
  // The mode is read from the K state alone, so a lone V state would be ignored silently.
  if (c.has_input(kKState) != c.has_input(kVState)) return c.fail("k and v states come together");
  if (c.has_input(kMemory) && mode != Mode::kProject) return c.fail("memory needs K/V projections and no states");
  if (mode != Mode::kProject) FOCAL_RETURN_IF_ERROR(check_states(c, x, kv_features));
  FOCAL_RETURN_IF_ERROR(check_cache_storage(c, o));
  if (mode == Mode::kCache && dim_symbol(c.input(kKState), 1) != -1) {
    return c.fail("a KV cache's length must be fixed (the planned context)");
  }
  if (mode != Mode::kPrecomputed) {
    const fb::Tensor& source = c.has_input(kMemory) ? c.input(kMemory) : x;
    if (c.has_input(kMemory)) FOCAL_RETURN_IF_ERROR(check_sequence(c, source, x));
    FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, c.input(kWk), kv_features, dim(source, 2)));
    FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, c.input(kWv), kv_features, dim(source, 2)));
    FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kBk, kv_features));
    FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kBv, kv_features));
  } else if (c.has_input(kBk) || c.has_input(kBv)) {
    return c.fail("precomputed keys and values take no biases here");
  }
  if (o.rope() != fb::RopeLayout_None && (c.has_input(kMemory) || mode == Mode::kPrecomputed)) {
    return c.fail("RoPE applies to self-attention only");
  }
  if (o.causal() && (c.has_input(kMemory) || mode == Mode::kPrecomputed)) {
    return c.fail("a causal mask applies to self-attention only");
  }
  if (c.has_input(kKeyMask)) {
    if (mode == Mode::kCache) return c.fail("a key mask with a KV cache is not supported");
    const fb::Tensor& keys = mode == Mode::kPrecomputed ? c.input(kKState)
                             : c.has_input(kMemory)    ? c.input(kMemory)
                                                       : x;
    const fb::Tensor& mask = c.input(kKeyMask);
    FOCAL_RETURN_IF_ERROR(expect_i32(c, mask));
    FOCAL_RETURN_IF_ERROR(expect_rank(c, mask, 2, 2));
    if (!same_dim(mask, 0, keys, 0) || !same_dim(mask, 1, keys, 1)) {
      return c.fail("key mask must be [B, Sk] of the keys");
    }
  }
  return Status();
}

// Rows [H, 2L - 1] by key - query distance (a RelativePositionBias op's): L must cover
// every key the op attends, and only self-attention has positions to relate.
Status check_relative_bias(const OpCheck& c, const fb::MultiHeadAttentionOptions& o) {
  // One check and one message: this code is in every firmware that runs attention.
  if (!c.has_input(kRelativeBias)) return Status();
  const fb::Tensor& rows = c.input(kRelativeBias);
  const fb::Tensor& keys = mode_of(c.op) == Mode::kCache ? c.input(kKState) : c.input(kX);
  if (c.has_input(kMemory) || mode_of(c.op) == Mode::kPrecomputed || rows.dtype() != fb::DType_F32 ||
      rank(rows) != 2 || dim_symbol(rows, 1) != -1 || dim(rows, 0) != o.num_heads() || dim(rows, 1) % 2 != 1 ||
      dim(rows, 1) / 2 + 1 < dim(keys, 1)) {
    return c.fail("relative bias rows must be f32 [%d heads, 2L - 1], L >= %lld keys, in self-attention",
                  static_cast<int>(o.num_heads()), static_cast<long long>(dim(keys, 1)));
  }
  return Status();
}

// Qwen3's per-head RMSNorm weights of queries and keys: [Dh] f32, both or neither, and
// only where the op projects the keys itself.
Status check_qk_norms(const OpCheck& c, const fb::MultiHeadAttentionOptions& o) {
  if (!c.has_input(kQNorm) && !c.has_input(kKNorm)) return Status();
  if (!c.has_input(kQNorm) || !c.has_input(kKNorm) || mode_of(c.op) == Mode::kPrecomputed) {
    return c.fail("q and k norms come together, with K projections (not precomputed states)");
  }
  if (!(o.qk_norm_epsilon() >= 0.0f) || !std::isfinite(o.qk_norm_epsilon())) {
    return c.fail("qk_norm_epsilon must be finite and >= 0");
  }
  FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kQNorm, o.head_dim()));
  return expect_optional_vector(c, kKNorm, o.head_dim());
}

Status check_mha(const OpCheck& c) {
  const fb::MultiHeadAttentionOptions& o = *c.op.options_as_MultiHeadAttentionOptions();
  FOCAL_RETURN_IF_ERROR(check_options(c, o));
  if (o.quantized() != nullptr) return c.fail("integer attention records on f32 activations");
  const fb::Tensor& x = c.input(kX);
  const fb::Tensor& y = c.output(0);
  FOCAL_RETURN_IF_ERROR(check_sequence(c, x, x));
  const int64_t q_features = int64_t(o.num_heads()) * o.head_dim();
  const int64_t kv_features = int64_t(o.num_kv_heads()) * o.head_dim();
  FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, c.input(kWq), q_features, dim(x, 2)));
  FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kBq, q_features));
  const fb::Tensor& wo = c.input(kWo);
  FOCAL_RETURN_IF_ERROR(expect_packed_weight(c, wo, dim(wo, 0), q_features));
  FOCAL_RETURN_IF_ERROR(expect_optional_vector(c, kBo, dim(wo, 0)));
  FOCAL_RETURN_IF_ERROR(check_sequence(c, y, x));
  if (!same_dim(y, 1, x, 1) || dim(y, 2) != dim(wo, 0)) return c.fail("output must be [B, Sq, out features]");
  FOCAL_RETURN_IF_ERROR(check_key_source(c, o, x, kv_features));
  FOCAL_RETURN_IF_ERROR(check_qk_norms(c, o));
  return check_relative_bias(c, o);
}

// ---- Workspace ---------------------------------------------------------------------

struct Sizes {
  int64_t batch, q_len, kv_len, q_features, kv_features;
};

AttentionParams attention_params(const fb::MultiHeadAttentionOptions& o, const Sizes& s) {
  AttentionParams p;
  p.batch = static_cast<size_t>(s.batch);
  p.heads = static_cast<size_t>(o.num_heads());
  p.kv_heads = static_cast<size_t>(o.num_kv_heads());
  p.q_len = static_cast<size_t>(s.q_len);
  p.kv_len = static_cast<size_t>(s.kv_len);
  p.head_dim = static_cast<size_t>(o.head_dim());
  p.scale = o.scale();
  p.mask.causal = o.causal();
  p.mask.causal_offset = s.kv_len - s.q_len;  // the queries are the last q_len positions
  p.q_strides = dense_strides(s.q_len, s.q_features, o.head_dim());
  p.out_strides = p.q_strides;
  p.k_strides = dense_strides(s.kv_len, s.kv_features, o.head_dim());
  p.v_strides = p.k_strides;
  return p;
}

struct Regions {
  size_t q, k, v, ctx, lengths, kernel, end;  // byte offsets into the workspace
};

// Rows of f32 K and V the workspace holds: every key when projected each run, this
// run's new tokens before an f16 or int8 cache stores them, none for an f32 cache.
int64_t workspace_kv_rows(Mode mode, KvType cache, const Sizes& s) {
  if (mode == Mode::kProject) return s.batch * s.kv_len;
  return mode == Mode::kCache && cache != KvType::kF32 ? s.batch * s.q_len : 0;
}

Regions regions(const Sizes& s, int64_t kv_rows) {
  // Saturating: sizes come from the file (see saturating_size.h).
  const size_t q_bytes = saturating_float_bytes(saturating_product(s.batch, s.q_len, s.q_features));
  const size_t kv = saturating_float_bytes(saturating_product(kv_rows, s.kv_features, 1));
  Regions r;
  r.q = 0;
  r.k = saturating_add(r.q, q_bytes);
  r.v = saturating_add(r.k, kv);
  r.ctx = saturating_add(r.v, kv);
  r.lengths = saturating_add(r.ctx, q_bytes);
  r.kernel = saturating_add(r.lengths, saturating_float_bytes(saturating_size(s.batch)));
  r.end = r.kernel;
  return r;
}

Sizes planned_sizes(const fb::Model& model, const fb::Op& op) {
  const fb::MultiHeadAttentionOptions& o = *op.options_as_MultiHeadAttentionOptions();
  const fb::Tensor& x = tensor_at(model, op, kX);
  const Mode mode = mode_of(op);
  const fb::Tensor& keys = mode != Mode::kProject ? tensor_at(model, op, kKState)
                           : present(op, kMemory) ? tensor_at(model, op, kMemory)
                                                  : x;
  return Sizes{x.shape()->Get(0), x.shape()->Get(1), keys.shape()->Get(1),
               int64_t(o.num_heads()) * o.head_dim(), int64_t(o.num_kv_heads()) * o.head_dim()};
}

// The int8 rows of the largest projection at the planned sizes: Q and O over B * Sq
// rows, K and V over the source's B * Sk (B * Sq new tokens with a cache).
size_t projection_scratch_bytes(const fb::Model& model, const fb::Op& op, const Sizes& s) {
  const int64_t q_rows = s.batch * s.q_len;  // each <= kMaxDim: no overflow
  const int64_t kv_rows = mode_of(op) == Mode::kProject ? s.batch * s.kv_len : q_rows;
  size_t bytes = 0;
  for (int slot : {kWq, kWk, kWv, kWo}) {
    if (!present(op, slot)) continue;
    const size_t need = packed_dense_workspace_bytes(tensor_at(model, op, slot), slot == kWk || slot == kWv ? kv_rows : q_rows);
    bytes = need > bytes ? need : bytes;
  }
  return bytes;
}

size_t mha_workspace(const fb::Model& model, const fb::Op& op, int workers) {
  const fb::MultiHeadAttentionOptions& o = *op.options_as_MultiHeadAttentionOptions();
  const Sizes s = planned_sizes(model, op);
  const Regions r = regions(s, workspace_kv_rows(mode_of(op), cache_type(model, op), s));
  // The kernel's scratch grows with every size within prefill and within decode
  // (q_len <= 16), so the planned maximum of each covers every smaller run.
  Sizes decode = s;
  decode.q_len = s.q_len < 16 ? s.q_len : 16;
  const size_t prefill_bytes = attention_workspace_bytes(attention_params(o, s), workers);
  const size_t decode_bytes = attention_workspace_bytes(attention_params(o, decode), workers);
  // 0: the kernel refuses these sizes; saturate so the session refuses them at creation.
  if (prefill_bytes == 0 || decode_bytes == 0) return kSaturatedSize;
  const size_t kernel = prefill_bytes > decode_bytes ? prefill_bytes : decode_bytes;
  const size_t projections = projection_scratch_bytes(model, op, s);
  return saturating_add(r.end, kernel > projections ? kernel : projections);
}

// ---- Run ---------------------------------------------------------------------------

const float* optional_f32(const OpRun& r, int slot) {
  return r.input_count > slot && r.inputs[slot].present() ? r.inputs[slot].f32() : nullptr;
}

// Qwen3's q or k norm (slot kQNorm or kKNorm), in place on `heads` contiguous head rows
// of head_dim values; nothing without it.
void apply_head_norm(const OpRun& r, const fb::MultiHeadAttentionOptions& o, int slot, float* x, size_t heads) {
  const float* gamma = optional_f32(r, slot);
  if (gamma == nullptr) return;
  const kernels::LayerNormParams p{heads, static_cast<size_t>(o.head_dim()), o.qk_norm_epsilon()};
  rmsnorm(p, x, gamma, x, r.kernels);
}

Status apply_rope(const OpRun& r, const fb::MultiHeadAttentionOptions& o, float* x, size_t batch, size_t seq,
                  size_t heads, size_t batch_stride, int64_t first_position) {
  kernels::RopeParams p;
  p.batch = batch;
  p.seq = seq;
  p.heads = heads;
  p.head_dim = static_cast<size_t>(o.head_dim());
  p.rotary_dim = static_cast<size_t>(o.rotary_dim());
  p.theta = o.rope_theta();
  p.inv_frequency = o.rope_inv_freq() != nullptr ? o.rope_inv_freq()->data() : nullptr;  // checked at load
  p.layout = o.rope() == fb::RopeLayout_Interleaved ? kernels::RopeLayout::kInterleaved
                                                    : kernels::RopeLayout::kHalfSplit;
  p.position_offset = first_position;
  p.batch_stride = batch_stride;
  p.x = x;
  p.y = x;
  return rope(p, r.kernels);
}

// K and V of this run's tokens written into the states at the cached length.
Status append_to_cache(const OpRun& r, const fb::MultiHeadAttentionOptions& o, const Sizes& s, int64_t capacity, DenseScratch scratch) {
  const size_t features = static_cast<size_t>(s.kv_features);
  for (int64_t b = 0; b < s.batch; ++b) {
    const float* x = r.inputs[kX].f32() + static_cast<size_t>(b * s.q_len) * r.inputs[kX].shape.dims[2];
    const size_t row = static_cast<size_t>(b * capacity + r.cached_length);
    float* k = r.inputs[kKState].mutable_f32() + row * features;
    float* v = r.inputs[kVState].mutable_f32() + row * features;
    FOCAL_RETURN_IF_ERROR(packed_dense(*r.inputs[kWk].tensor, r.inputs[kWk].data, x, static_cast<size_t>(s.q_len),
                                       optional_f32(r, kBk), k, features, scratch, r.parallel, r.kernels));
    FOCAL_RETURN_IF_ERROR(packed_dense(*r.inputs[kWv].tensor, r.inputs[kWv].data, x, static_cast<size_t>(s.q_len),
                                       optional_f32(r, kBv), v, features, scratch, r.parallel, r.kernels));
    apply_head_norm(r, o, kKNorm, k, static_cast<size_t>(s.q_len * o.num_kv_heads()));
  }
  return Status();
}

// K and V of this run's tokens projected into the workspace (RoPE'd at their
// positions), then stored in the f16 or int8 cache at the cached length.
Status append_converted(const OpRun& r, const fb::MultiHeadAttentionOptions& o, const Sizes& s, int64_t capacity,
                        KvType type, float* new_k, float* new_v, DenseScratch scratch) {
  const size_t rows = static_cast<size_t>(s.batch * s.q_len), features = static_cast<size_t>(s.kv_features);
  FOCAL_RETURN_IF_ERROR(packed_dense(*r.inputs[kWk].tensor, r.inputs[kWk].data, r.inputs[kX].f32(), rows,
                                     optional_f32(r, kBk), new_k, 0, scratch, r.parallel, r.kernels));
  FOCAL_RETURN_IF_ERROR(packed_dense(*r.inputs[kWv].tensor, r.inputs[kWv].data, r.inputs[kX].f32(), rows,
                                     optional_f32(r, kBv), new_v, 0, scratch, r.parallel, r.kernels));
  apply_head_norm(r, o, kKNorm, new_k, rows * static_cast<size_t>(o.num_kv_heads()));
  if (o.rope() != fb::RopeLayout_None) {
    FOCAL_RETURN_IF_ERROR(apply_rope(r, o, new_k, static_cast<size_t>(s.batch), static_cast<size_t>(s.q_len),
                                     static_cast<size_t>(o.num_kv_heads()), 0, r.cached_length));
  }
  const size_t heads = static_cast<size_t>(o.num_kv_heads()), elements = kernels::kv_element_bytes(type);
  for (int64_t b = 0; b < s.batch; ++b) {
    const size_t first = static_cast<size_t>(b * capacity + r.cached_length);  // row in the cache
    for (const int slot : {kKState, kVState}) {
      const float* x = (slot == kKState ? new_k : new_v) + static_cast<size_t>(b * s.q_len) * features;
      const kernels::KvRows source{x, features, static_cast<size_t>(s.q_len), heads, static_cast<size_t>(o.head_dim())};
      uint8_t* cache = static_cast<uint8_t*>(r.inputs[slot].data) + first * features * elements;
      float* scales = type == KvType::kI8 ? r.inputs[slot == kKState ? kKScales : kVScales].mutable_f32() + first * heads
                                          : nullptr;
      kernels::store_kv_rows(source, type, cache, features, scales, heads);
    }
  }
  return Status();
}

// The cache's K and V (and int8 scales) as the attention kernel reads them.
void cache_operands(const OpRun& r, const Sizes& s, int64_t capacity, int kv_heads, KvType type,
                    int head_dim, AttentionParams* p) {
  p->kv_type = type;
  p->k = r.inputs[kKState].data;
  p->v = r.inputs[kVState].data;
  p->k_strides = dense_strides(capacity, s.kv_features, head_dim);
  p->v_strides = p->k_strides;
  if (type != KvType::kI8) return;
  p->k_scales = r.inputs[kKScales].f32();
  p->v_scales = r.inputs[kVScales].f32();
  p->k_scale_strides = dense_strides(capacity, kv_heads, 1);
  p->v_scale_strides = p->k_scale_strides;
}

// Run-time sizes: the keys are the source's (projected each run), the cache's after this
// run's tokens, or the precomputed states'.
Sizes run_sizes(const OpRun& r, const fb::MultiHeadAttentionOptions& o, Mode mode) {
  const Shape& x = r.inputs[kX].shape;
  Sizes s{x.dims[0], x.dims[1], 0, int64_t(o.num_heads()) * o.head_dim(), int64_t(o.num_kv_heads()) * o.head_dim()};
  const BoundTensor& source = r.inputs[kMemory].present() ? r.inputs[kMemory] : r.inputs[kX];
  s.kv_len = mode == Mode::kProject   ? source.shape.dims[1]
             : mode == Mode::kCache ? r.cached_length + s.q_len
                                    : r.inputs[kKState].shape.dims[1];
  return s;
}

// Projection part, keys and values projected every run: K and V of the source (x, or
// memory) into the workspace, K normed and RoPE'd, as the attention kernel's operands.
Status project_keys_values(const OpRun& r, const fb::MultiHeadAttentionOptions& o, const Sizes& s, float* k, float* v,
                           DenseScratch scratch, AttentionParams* p) {
  const BoundTensor& source = r.inputs[kMemory].present() ? r.inputs[kMemory] : r.inputs[kX];
  const size_t source_rows = static_cast<size_t>(s.batch * s.kv_len);
  FOCAL_RETURN_IF_ERROR(packed_dense(*r.inputs[kWk].tensor, r.inputs[kWk].data, source.f32(), source_rows,
                                     optional_f32(r, kBk), k, 0, scratch, r.parallel, r.kernels));
  FOCAL_RETURN_IF_ERROR(packed_dense(*r.inputs[kWv].tensor, r.inputs[kWv].data, source.f32(), source_rows,
                                     optional_f32(r, kBv), v, 0, scratch, r.parallel, r.kernels));
  apply_head_norm(r, o, kKNorm, k, source_rows * static_cast<size_t>(o.num_kv_heads()));
  if (o.rope() != fb::RopeLayout_None) {
    FOCAL_RETURN_IF_ERROR(apply_rope(r, o, k, static_cast<size_t>(s.batch), static_cast<size_t>(s.kv_len),
                                     static_cast<size_t>(o.num_kv_heads()), 0, 0));
  }
  p->k = k;
  p->v = v;
  return Status();
}

// Cache part: this run's K and V appended to a KV cache (through f32 rows in the
// workspace for an f16 or int8 one), then the states, cached or precomputed, as the
// attention kernel's operands.
Status use_states(const OpRun& r, const fb::MultiHeadAttentionOptions& o, const Sizes& s, Mode mode, KvType type,
                  float* new_k, float* new_v, DenseScratch scratch, AttentionParams* p) {
  const int64_t capacity = r.inputs[kKState].shape.dims[1];
  if (mode == Mode::kCache && type != KvType::kF32) {
    FOCAL_RETURN_IF_ERROR(append_converted(r, o, s, capacity, type, new_k, new_v, scratch));
  } else if (mode == Mode::kCache) {
    FOCAL_RETURN_IF_ERROR(append_to_cache(r, o, s, capacity, scratch));
    if (o.rope() != fb::RopeLayout_None) {
      float* new_keys = r.inputs[kKState].mutable_f32() + static_cast<size_t>(r.cached_length * s.kv_features);
      FOCAL_RETURN_IF_ERROR(apply_rope(r, o, new_keys, static_cast<size_t>(s.batch), static_cast<size_t>(s.q_len),
                                       static_cast<size_t>(o.num_kv_heads()),
                                       static_cast<size_t>(capacity * s.kv_features), r.cached_length));
    }
  }
  cache_operands(r, s, capacity, o.num_kv_heads(), type, o.head_dim(), p);
  return Status();
}

// Attention part: the key mask as valid lengths (into `lengths`), the relative position
// bias rows and the caller's buffer for the attention weights join p; attention over Q
// into ctx (p.q, p.out), then the output projection of ctx into the op's output.
Status attend(const OpRun& r, const Sizes& s, int32_t* lengths, DenseScratch scratch, AttentionParams* p) {
  if (r.input_count > kKeyMask && r.inputs[kKeyMask].present()) {
    FOCAL_RETURN_IF_ERROR(mask_to_lengths(r.inputs[kKeyMask].i32(), static_cast<size_t>(s.batch),
                                          static_cast<size_t>(s.kv_len), "key mask", lengths));
    p->mask.key_lengths = lengths;
  }
  if (r.input_count > kRelativeBias && r.inputs[kRelativeBias].present()) {
    // Row h's entry center + d is distance d = key - query; query i sits at position
    // causal_offset + i, so (i, j) reads center - causal_offset + j - i: a q stride of -1.
    const Shape& bias_rows = r.inputs[kRelativeBias].shape;
    p->mask.bias = r.inputs[kRelativeBias].f32() + static_cast<ptrdiff_t>(bias_rows.dims[1] / 2 - p->mask.causal_offset);
    p->mask.bias_head_stride = static_cast<size_t>(bias_rows.dims[1]);
    p->mask.bias_q_stride = -1;
  }
  if (r.attention_weights != nullptr) {
    const size_t needed = p->batch * p->heads * p->q_len * p->kv_len;
    if (needed > r.attention_weights_floats) {
      return Status::error(StatusCode::kResourceExhausted,
                           "attention weights need %zu floats, the capture buffer holds %zu", needed,
                           r.attention_weights_floats);
    }
    p->weights = r.attention_weights;
  }
  FOCAL_RETURN_IF_ERROR(run_attention(*p, scratch.data, scratch.bytes, r.parallel, r.kernels));
  return packed_dense(*r.inputs[kWo].tensor, r.inputs[kWo].data, p->out, static_cast<size_t>(s.batch * s.q_len),
                      optional_f32(r, kBo), r.outputs[0].mutable_f32(), 0, scratch, r.parallel, r.kernels);
}

// Q projected (normed, RoPE'd at the queries' positions), K and V projected or taken
// from the states, attention over them, and the output projection of its result.
Status run_mha(const OpRun& r) {
  const fb::MultiHeadAttentionOptions& o = r.options<fb::MultiHeadAttentionOptions>();
  const Mode mode = mode_of(r.op);
  const Sizes s = run_sizes(r, o, mode);
  uint8_t* ws = static_cast<uint8_t*>(r.workspace);
  const KvType type = cache_type(r.model, r.op);
  const Regions reg = regions(s, workspace_kv_rows(mode, type, s));
  float* q = reinterpret_cast<float*>(ws + reg.q);
  float* k = reinterpret_cast<float*>(ws + reg.k);
  float* v = reinterpret_cast<float*>(ws + reg.v);
  float* ctx = reinterpret_cast<float*>(ws + reg.ctx);
  const size_t rows = static_cast<size_t>(s.batch * s.q_len);
  const DenseScratch scratch{ws + reg.kernel, r.workspace_bytes - reg.kernel};

  FOCAL_RETURN_IF_ERROR(packed_dense(*r.inputs[kWq].tensor, r.inputs[kWq].data, r.inputs[kX].f32(), rows,
                                     optional_f32(r, kBq), q, 0, scratch, r.parallel, r.kernels));
  apply_head_norm(r, o, kQNorm, q, rows * static_cast<size_t>(o.num_heads()));
  AttentionParams p = attention_params(o, s);
  FOCAL_RETURN_IF_ERROR(mode == Mode::kProject ? project_keys_values(r, o, s, k, v, scratch, &p)
                                               : use_states(r, o, s, mode, type, k, v, scratch, &p));
  if (o.rope() != fb::RopeLayout_None) {
    const int64_t first_position = mode == Mode::kCache ? r.cached_length : 0;
    FOCAL_RETURN_IF_ERROR(apply_rope(r, o, q, static_cast<size_t>(s.batch), static_cast<size_t>(s.q_len),
                                     static_cast<size_t>(o.num_heads()), 0, first_position));
  }
  p.q = q;
  p.out = ctx;
  return attend(r, s, reinterpret_cast<int32_t*>(ws + reg.lengths), scratch, &p);
}

// ---- Facts for the session and bench -------------------------------------------------

// A KV cache (states plus its own K/V projections) holds the states' planned length.
int64_t mha_cache_capacity(const fb::Model& model, const fb::Op& op) {
  return mode_of(op) == Mode::kCache ? tensor_at(model, op, kKState).shape()->Get(1) : 0;
}

int mha_captured_heads(const fb::Op& op) { return op.options_as_MultiHeadAttentionOptions()->num_heads(); }

// The four projections (2 FLOPs per weight and row) and the two attention products,
// Q.K^T and weights.V, over every cached key (or this run's keys without a cache).
double mha_flops(const OpShapes& s) {
  const Shape& x = s.inputs[kX];
  const int64_t leading = x.element_count() / x.dims[x.rank - 1];  // exact: the rows of x
  const double rows = double(leading);
  double flops = 0.0;
  for (int slot : {kWq, kWk, kWv, kWo}) {
    if (s.has_input(slot)) flops += 2.0 * rows * double(s.inputs[slot].dims[0] * s.inputs[slot].dims[1]);
  }
  const double kv = double(s.cached_length > 0 ? s.cached_length : x.dims[1]);
  return flops + 4.0 * rows * kv * double(s.inputs[kWq].dims[0]);
}

}  // namespace

const OpDef& multi_head_attention_op_def() {
  constexpr uint32_t kOptional = (1u << kBq) | (1u << kWk) | (1u << kBk) | (1u << kWv) |
                                 (1u << kBv) | (1u << kBo) | (1u << kKeyMask) | (1u << kKState) |
                                 (1u << kVState) | (1u << kMemory) | (1u << kKScales) | (1u << kVScales) |
                                 (1u << kRelativeBias) | (1u << kQNorm) | (1u << kKNorm);
  static const OpDef def = {"MultiHeadAttention", kKScales, kSlots, 1, check_mha, run_mha,
                            mha_workspace, kOptional, 0, mha_cache_capacity, mha_captured_heads, mha_flops};
  return def;
}

}  // namespace focal
