// Tensors: symbols, shapes, quantization, where each lives (file or arena), the inputs
// and outputs listed, and the plan's arena within kMaxArenaBytes.
#include <cmath>
#include <cstring>

#include "focal/gemm.h"
#include "focal/model.h"
#include "load/verify_checks.h"
#include "q4gemm/q4gemm_kernels.h"
#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace verify {
namespace {

Status check_tensor_shape(const fb::Model& model, const fb::Tensor& t, uint64_t* bytes) {
  if (!aligned_longs(t.shape()))
    return invalid("tensor '%s' has a misaligned shape vector", name_of(t));
  const uint32_t rank = t.shape()->size();
  if (rank < 1 || rank > static_cast<uint32_t>(kMaxRank)) {
    return invalid("tensor '%s' has rank %u, expected 1 to %d", name_of(t),
                   static_cast<unsigned>(rank), kMaxRank);
  }
  for (uint32_t i = 0; i < rank; ++i) {
    const int64_t d = t.shape()->Get(i);
    if (d < 1 || d > kMaxDim) {
      return invalid("tensor '%s' dim %u is %lld, every dim must be from 1 to %lld", name_of(t),
                     static_cast<unsigned>(i), static_cast<long long>(d),
                     static_cast<long long>(kMaxDim));
    }
  }
  if (!tensor_max_bytes(t, bytes)) {
    return invalid("tensor '%s': byte size of its shape overflows", name_of(t));
  }
  if (t.dim_symbols() == nullptr) return Status();
  if (t.dim_symbols()->size() != rank) {
    return invalid("tensor '%s' has %u dim symbols for rank %u", name_of(t),
                   static_cast<unsigned>(t.dim_symbols()->size()), static_cast<unsigned>(rank));
  }
  const uint32_t symbol_count = model.symbols() ? model.symbols()->size() : 0;
  for (uint32_t i = 0; i < rank; ++i) {
    const int32_t s = t.dim_symbols()->Get(i);
    if (s == -1) continue;
    if (s < 0 || static_cast<uint32_t>(s) >= symbol_count) {
      return invalid("tensor '%s' dim %u names symbol %d, the model has %u", name_of(t),
                     static_cast<unsigned>(i), static_cast<int>(s),
                     static_cast<unsigned>(symbol_count));
    }
    if (t.shape()->Get(i) != model.symbols()->Get(s)->max()) {
      return invalid("tensor '%s' dim %u is %lld, its symbol '%s' plans %lld", name_of(t),
                     static_cast<unsigned>(i), static_cast<long long>(t.shape()->Get(i)),
                     model.symbols()->Get(s)->name()->c_str(),
                     static_cast<long long>(model.symbols()->Get(s)->max()));
    }
  }
  return Status();
}

// An int8 activation (static quantization): one positive finite scale and one zero
// point in [-128, 127], which the ops trust.
Status check_activation_quantization(const fb::Tensor& t, const fb::Quantization& q) {
  const bool one_scale = q.scales()->size() == 1 && std::isfinite(q.scales()->Get(0)) && q.scales()->Get(0) > 0.0f;
  const bool one_zero = q.zero_points() != nullptr && aligned_longs(q.zero_points()) && q.zero_points()->size() == 1 &&
                        q.zero_points()->Get(0) >= -128 && q.zero_points()->Get(0) <= 127;
  if (!one_scale || !one_zero) {
    return invalid("int8 activation '%s' needs one positive scale and one zero point in [-128, 127]", name_of(t));
  }
  return Status();
}

Status check_quantization(const fb::Tensor& t) {
  // Packed dense weights carry their int8 scales inside their bytes; an int8 KV cache
  // (a state) has them in scale states of its own, which its op checks.
  if (t.dtype() != fb::DType_I8 || t.layout() != fb::TensorLayout_RowMajor) return Status();
  if (t.role() == fb::TensorRole_State) return Status();
  const fb::Quantization* q = t.quantization();
  if (q == nullptr || q->scales() == nullptr) {
    return invalid("int8 tensor '%s' has no quantization scales", name_of(t));
  }
  if (t.role() != fb::TensorRole_Constant) return check_activation_quantization(t, *q);
  if (q->zero_points() != nullptr && q->zero_points()->size() != 0) {
    return invalid("int8 constant '%s' has zero points; constants are symmetric", name_of(t));
  }
  const int32_t axis = q->axis();
  if (axis < 0 || static_cast<uint32_t>(axis) >= t.shape()->size() ||
      static_cast<int64_t>(q->scales()->size()) != t.shape()->Get(axis)) {
    return invalid("int8 tensor '%s': scales must be one per channel of a valid axis", name_of(t));
  }
  return Status();
}

// A packed dense weight's byte size from its layout, dtype and [out, in] shape.
Status check_packed_bytes(const fb::Tensor& t, uint64_t* bytes) {
  const bool matrix = rank_of(t) == 2;
  const size_t out = matrix ? static_cast<size_t>(t.shape()->Get(0)) : 0;
  const size_t in = matrix ? static_cast<size_t>(t.shape()->Get(1)) : 0;
  if (t.layout() == fb::TensorLayout_DensePacked) {
    *bytes = matrix ? packed_dense_weights_bytes(to_dtype(t.dtype()), out, in) : 0;
    if (*bytes == 0) {
      return invalid("packed dense weight '%s' must be [out, in] of f32, f16, bf16 or i8",
                     name_of(t));
    }
    const bool half = t.dtype() == fb::DType_F16 || t.dtype() == fb::DType_BF16;
    if (half && !FOCAL_HALF_WEIGHTS) {  // the GEMM tables hold no f16 or bf16 task
      return Status::error(StatusCode::kUnsupported,
                           "dense weight '%s' is %s: this engine is built without f16 and bf16 weights "
                           "(FOCAL_HALF_WEIGHTS)",
                           name_of(t), fb::EnumNameDType(t.dtype()));
    }
  } else if (t.layout() == fb::TensorLayout_DenseInt4) {
    const size_t group = t.group_size() > 0 ? static_cast<size_t>(t.group_size()) : 0;
    *bytes = matrix && t.dtype() == fb::DType_I4 ? packed_dense_weights_int4_bytes(out, in, group) : 0;
    if (*bytes == 0) {
      return invalid("int4 weight '%s' must be [out, in] of i4 with in <= %zu and group size 32, 64 or "
                     "128 (found %s, group size %d)",
                     name_of(t), kMaxInt8GemmK, fb::EnumNameDType(t.dtype()), static_cast<int>(t.group_size()));
    }
  } else if (t.dtype() == fb::DType_I4) {
    return invalid("i4 tensor '%s' must be an int4 dense weight (layout DenseInt4)", name_of(t));
  } else if (t.layout() == fb::TensorLayout_DenseInt8Dot) {
    *bytes = matrix && t.dtype() == fb::DType_I8 ? packed_dense_weights_int8_dot_bytes(out, in) : 0;
    if (*bytes == 0) {
      return invalid("int8-dot weight '%s' must be [out, in] of i8 with in <= %zu (found %s)",
                     name_of(t), kMaxInt8GemmK, fb::EnumNameDType(t.dtype()));
    }
  }
  return Status();
}

// The engine trusts an int8-dot weight's column sums (they cancel the activation
// offset) and scales, so a file whose sums, scales or padding disagree with its panels
// is refused here rather than giving wrong outputs; an int4 weight's scales and padding
// likewise. Reads every byte of the weight once.
Status check_int8_dot_contents(const fb::Tensor& t, const FileLayout& file) {
  const uint8_t* packed = file.bytes + file.data_offset + t.data()->offset();  // checked in bounds
  const char* why = "";
  if (t.layout() == fb::TensorLayout_DenseInt4) {  // the scales are trusted too (finite, >= 0)
    if (!FOCAL_INT4_WEIGHTS) {
      return Status::error(StatusCode::kUnsupported,
                           "int4 weight '%s': this engine is built without int4 weights (FOCAL_INT4_WEIGHTS)",
                           name_of(t));
    }
    if (kernels::q4gemm_packed_consistent(packed, static_cast<size_t>(t.shape()->Get(0)),
                                          static_cast<size_t>(t.shape()->Get(1)),
                                          static_cast<size_t>(t.group_size()), &why)) {
      return Status();
    }
    return invalid("int4 weight '%s' is malformed: %s (re-convert the model)", name_of(t), why);
  }
  if (t.layout() != fb::TensorLayout_DenseInt8Dot) return Status();
  if (kernels::qgemm_packed_consistent(packed, static_cast<size_t>(t.shape()->Get(0)),
                                       static_cast<size_t>(t.shape()->Get(1)), &why)) {
    return Status();
  }
  return invalid("int8-dot weight '%s' is malformed: %s (re-convert the model)", name_of(t), why);
}

Status check_arena_placement(const fb::Model& model, const fb::Tensor& t, uint64_t bytes) {
  if (t.data() != nullptr && t.data()->size() != 0) {
    return invalid("%s tensor '%s' must not carry data", fb::EnumNameTensorRole(t.role()),
                   name_of(t));
  }
  const fb::MemoryPlan& plan = *model.plan();
  if (t.arena_offset() % plan.alignment() != 0 || t.arena_offset() > plan.arena_bytes() ||
      bytes > plan.arena_bytes() - t.arena_offset()) {
    return invalid(
        "tensor '%s' at arena offset %llu (+%llu bytes) is misaligned or beyond "
        "the planned arena of %llu bytes",
        name_of(t), static_cast<unsigned long long>(t.arena_offset()),
        static_cast<unsigned long long>(bytes),
        static_cast<unsigned long long>(plan.arena_bytes()));
  }
  return Status();
}

}  // namespace

Status check_symbols(const fb::Model& model) {
  const auto* symbols = model.symbols();
  if (symbols == nullptr) return Status();
  if (symbols->size() > static_cast<uint32_t>(kMaxSymbols)) {
    return invalid("%u symbols, at most %d supported", static_cast<unsigned>(symbols->size()),
                   kMaxSymbols);
  }
  for (const fb::Symbol* s : *symbols) {
    if (s->max() < 1 || s->max() > (int64_t(1) << 31)) {
      return invalid("symbol '%s' has maximum %lld, expected 1 to 2^31", s->name()->c_str(),
                     static_cast<long long>(s->max()));
    }
  }
  return Status();
}

Status check_tensors(const fb::Model& model, const FileLayout& file) {
  const auto& tensors = *model.tensors();
  if (tensors.size() > kMaxTensors) {
    return invalid("%u tensors, at most %u supported", static_cast<unsigned>(tensors.size()),
                   static_cast<unsigned>(kMaxTensors));
  }
  for (const fb::Tensor* t : tensors) {
    if (t->dtype() > fb::DType_MAX)
      return invalid("tensor '%s' has unknown dtype %d", name_of(*t), t->dtype());
    if (t->role() > fb::TensorRole_MAX)
      return invalid("tensor '%s' has unknown role %d", name_of(*t), t->role());
    uint64_t bytes = 0;
    FOCAL_RETURN_IF_ERROR(check_tensor_shape(model, *t, &bytes));
    FOCAL_RETURN_IF_ERROR(check_quantization(*t));
    if (t->layout() > fb::TensorLayout_MAX ||
        (t->layout() != fb::TensorLayout_RowMajor && t->role() != fb::TensorRole_Constant)) {
      return invalid("tensor '%s' has layout %d, which only constants may use", name_of(*t),
                     static_cast<int>(t->layout()));
    }
    FOCAL_RETURN_IF_ERROR(check_packed_bytes(*t, &bytes));
    if (t->when_absent() > fb::WhenAbsent_MAX) {
      return invalid("tensor '%s' has unknown when_absent %d", name_of(*t), static_cast<int>(t->when_absent()));
    }
    if (t->when_absent() != fb::WhenAbsent_Required) {
      if (t->role() != fb::TensorRole_Input) return invalid("tensor '%s': only an input may be optional", name_of(*t));
      if (t->dtype() != fb::DType_I32 && t->dtype() != fb::DType_F32) {
        return invalid("optional input '%s' is %s; an optional input is i32 or f32", name_of(*t),
                       fb::EnumNameDType(t->dtype()));
      }
    }
    if (t->role() == fb::TensorRole_Constant) {
      if (t->dim_symbols() != nullptr) {
        for (int32_t s : *t->dim_symbols()) {
          if (s != -1) return invalid("constant '%s' cannot have symbolic dims", name_of(*t));
        }
      }
      FOCAL_RETURN_IF_ERROR(check_buffer(file, t->data(), bytes, "constant", name_of(*t)));
      FOCAL_RETURN_IF_ERROR(check_int8_dot_contents(*t, file));
    } else {
      FOCAL_RETURN_IF_ERROR(check_arena_placement(model, *t, bytes));
    }
  }
  return Status();
}

// Constants must not share bytes: each weight is its own, so no two can alias.
Status check_plan_header(const fb::Model& model) {
  const uint32_t alignment = model.plan()->alignment();
  if (alignment < 16 || alignment > kBufferAlignment || (alignment & (alignment - 1)) != 0) {
    return invalid("memory plan alignment %u must be a power of two from 16 to %zu",
                   static_cast<unsigned>(alignment), kBufferAlignment);
  }
  return Status();
}

// After the tensors, so a file whose only fault is one tensor's shape is told about it.
Status check_arena_limit(const fb::Model& model) {
  if (model.plan()->arena_bytes() > kMaxArenaBytes) {
    return invalid("memory plan arena of %llu bytes exceeds this target's limit of %llu",
                   static_cast<unsigned long long>(model.plan()->arena_bytes()),
                   static_cast<unsigned long long>(kMaxArenaBytes));
  }
  return Status();
}

// Model inputs and outputs: in range, of the right role, listed once, and every tensor
// with an input or output role is listed.
Status check_io_list(const fb::Model& model, const flatbuffers::Vector<int32_t>& list,
                     fb::TensorRole role, uint32_t max_count) {
  const auto& tensors = *model.tensors();
  const char* what = fb::EnumNameTensorRole(role);
  if (list.size() > max_count)
    return invalid("%u %ss, at most %u", static_cast<unsigned>(list.size()), what,
                   static_cast<unsigned>(max_count));
  uint32_t role_count = 0;
  for (const fb::Tensor* t : tensors) role_count += t->role() == role ? 1 : 0;
  if (role_count != list.size()) {
    return invalid("%u tensors have role %s but the model lists %u",
                   static_cast<unsigned>(role_count), what, static_cast<unsigned>(list.size()));
  }
  for (uint32_t i = 0; i < list.size(); ++i) {
    const int32_t t = list.Get(i);
    if (t < 0 || static_cast<uint32_t>(t) >= tensors.size()) {
      return invalid("%s %u names tensor %d, the model has %u", what, static_cast<unsigned>(i),
                     static_cast<int>(t), static_cast<unsigned>(tensors.size()));
    }
    if (tensors.Get(t)->role() != role) {
      return invalid("%s %u is tensor '%s' whose role is %s", what, static_cast<unsigned>(i),
                     name_of(*tensors.Get(t)), fb::EnumNameTensorRole(tensors.Get(t)->role()));
    }
    for (uint32_t j = 0; j < i; ++j) {
      if (list.Get(j) == t) return invalid("tensor '%s' listed twice", name_of(*tensors.Get(t)));
    }
  }
  return Status();
}

}  // namespace verify
}  // namespace focal
