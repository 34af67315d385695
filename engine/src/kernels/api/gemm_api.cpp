// The public GEMM entry points: check the problem once, then run it through the engine's
// own door (dispatch/gemm_dispatch.h) on the best kernel set. Also the weight packing.
#include <cstdint>

#include "dispatch/gemm_dispatch.h"
#include "dispatch/kernel_set.h"
#include "focal/gemm.h"
#include "gemm/gemm_kernels.h"
#include "q4gemm/q4gemm_kernels.h"
#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace {

using kernels::GemmWeights;
using kernels::kGemmPanel;

bool valid_dim(size_t dim) { return dim >= 1 && dim <= kMaxGemmDim; }

Status invalid(const char* what) {
  return Status::error(StatusCode::kInvalidArgument, "gemm: %s", what);
}

// Weights of a type this build leaves out (gemm_weights_built), naming its option.
Status unsupported(DType weight_type, const char* option) {
  return Status::error(StatusCode::kUnsupported, "gemm: %s weights are not built into this engine (%s)",
                       dtype_name(weight_type), option);
}

// [begin, begin + bytes) and [other, other + other_bytes) share a byte.
bool overlap(const void* begin, size_t bytes, const void* other, size_t other_bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(begin), b = reinterpret_cast<uintptr_t>(other);
  return a < b + other_bytes && b < a + bytes;
}

// Bytes spanned by `rows` rows of `cols` floats, `stride` apart; 0 if that overflows.
size_t span_bytes(size_t rows, size_t cols, size_t stride) {
  const size_t limit = SIZE_MAX / 4;
  if (rows > 1 && stride > (limit - cols) / (rows - 1)) return 0;
  return ((rows - 1) * stride + cols) * 4;
}

// The workspace of int8 activations or int4 weights: present, large enough, aligned,
// apart from x and y.
Status check_workspace(const GemmParams& p, size_t x_bytes, size_t y_bytes) {
  const size_t work = gemm_workspace_bytes(p);
  if (p.workspace == nullptr || p.workspace_bytes < work || reinterpret_cast<uintptr_t>(p.workspace) % 4 != 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "gemm: int8 activations need a 4-byte aligned workspace of %zu bytes "
                         "(gemm_workspace_bytes), got %zu",
                         work, p.workspace == nullptr ? size_t(0) : p.workspace_bytes);
  }
  if (overlap(p.workspace, work, p.x, x_bytes) || overlap(p.workspace, work, p.y, y_bytes)) {
    return invalid("the workspace must not overlap x or y");
  }
  return Status();
}

// Int4 weights: the group, K, the workspace and the packed bytes.
Status check_int4_params(const GemmParams& p, size_t x_bytes, size_t y_bytes) {
  if (!kernels::q4_group_supported(p.int4_group)) return invalid("int4_group must be 32, 64 or 128");
  if (p.k > kMaxInt8GemmK) return invalid("k must be at most 2^16 with int4 weights");
  FOCAL_RETURN_IF_ERROR(check_workspace(p, x_bytes, y_bytes));
  const size_t need = packed_dense_weights_int4_bytes(p.n, p.k, p.int4_group);
  if (need == 0) return invalid("the packed weights would span more than the address space");
  if (p.packed_weights_bytes < need) {
    return Status::error(StatusCode::kInvalidArgument,
                         "gemm: packed_weights_bytes is %zu, %zu needed for n = %zu, k = %zu",
                         p.packed_weights_bytes, need, p.n, p.k);
  }
  if (reinterpret_cast<uintptr_t>(p.packed_weights) % 4 != 0) return invalid("packed_weights must be 4-byte aligned");
  if (overlap(p.y, y_bytes, p.x, x_bytes) || overlap(p.y, y_bytes, p.packed_weights, need) ||
      (p.bias != nullptr && overlap(p.y, y_bytes, p.bias, p.n * 4))) {
    return invalid("y must not overlap x, the weights or the bias");
  }
  return Status();
}

}  // namespace

bool gemm_weights_built(DType type) {
  const bool half = type == DType::kF16 || type == DType::kBF16;
  return type == DType::kF32 || type == DType::kI8 || (half && FOCAL_HALF_WEIGHTS) ||
         (type == DType::kI4 && FOCAL_INT4_WEIGHTS);
}

Status check_gemm_params(const GemmParams& p) {
  if (!valid_dim(p.m) || !valid_dim(p.n) || !valid_dim(p.k)) {
    return invalid("m, n and k must be 1 to 2^24");
  }
  GemmWeights type = GemmWeights::kI8;
  const bool int4 = p.weight_type == DType::kI4;
  if (!int4 && !gemm_weight_type(p.weight_type, &type))
    return invalid("weight_type must be f32, f16, bf16, i8 or i4");
  if (static_cast<uint8_t>(p.activation) > static_cast<uint8_t>(Activation::kSigmoid)) {
    return invalid("unknown activation");
  }
  if (p.x == nullptr || p.y == nullptr || p.packed_weights == nullptr) {
    return invalid("x, y and packed_weights must not be null");
  }
  const size_t x_stride = p.x_stride == 0 ? p.k : p.x_stride;
  const size_t y_stride = p.y_stride == 0 ? p.n : p.y_stride;
  if (x_stride < p.k || y_stride < p.n) return invalid("x_stride must be >= k and y_stride >= n");
  const size_t x_bytes = span_bytes(p.m, p.k, x_stride), y_bytes = span_bytes(p.m, p.n, y_stride);
  if (x_bytes == 0 || y_bytes == 0) return invalid("x or y spans more than the address space");
  if (int4 && !gemm_weights_built(p.weight_type)) return unsupported(p.weight_type, "FOCAL_INT4_WEIGHTS");
  if (int4) return check_int4_params(p, x_bytes, y_bytes);
  if (p.int8_activations) {
    if (type != GemmWeights::kI8) return invalid("int8 activations need int8 weights (weight_type i8)");
    if (p.k > kMaxInt8GemmK) return invalid("k must be at most 2^16 with int8 activations");
    FOCAL_RETURN_IF_ERROR(check_workspace(p, x_bytes, y_bytes));
  }
  if (!gemm_weights_built(p.weight_type)) return unsupported(p.weight_type, "FOCAL_HALF_WEIGHTS");
  const size_t need = p.int8_activations ? packed_dense_weights_int8_dot_bytes(p.n, p.k)
                                         : packed_dense_weights_bytes(p.weight_type, p.n, p.k);
  if (need == 0) return invalid("the packed weights would span more than the address space");
  if (p.packed_weights_bytes < need) {
    return Status::error(StatusCode::kInvalidArgument,
                         "gemm: packed_weights_bytes is %zu, %zu needed for n = %zu, k = %zu",
                         p.packed_weights_bytes, need, p.n, p.k);
  }
  const size_t align = type == GemmWeights::kF16 || type == GemmWeights::kBF16 ? 2 : 4;
  if (reinterpret_cast<uintptr_t>(p.packed_weights) % align != 0) {
    return invalid("packed_weights must be aligned to its element (4 bytes for f32 and i8)");
  }
  if (overlap(p.y, y_bytes, p.x, x_bytes) || overlap(p.y, y_bytes, p.packed_weights, need) ||
      (p.bias != nullptr && overlap(p.y, y_bytes, p.bias, p.n * 4))) {
    return invalid("y must not overlap x, the weights or the bias");
  }
  return Status();
}

size_t packed_dense_weights_bytes(DType type, size_t out, size_t in) {
  GemmWeights internal;
  if (!gemm_weight_type(type, &internal) || !valid_dim(out) || !valid_dim(in)) return 0;
  const size_t panels = (out + kGemmPanel - 1) / kGemmPanel;
  if (panels * kGemmPanel > SIZE_MAX / 4 / in) return 0;  // 32-bit targets
  return kernels::gemm_packed_bytes(internal, out, in);
}

Result<size_t> pack_dense_weights(DType type, const float* w, size_t out, size_t in, void* packed,
                                  size_t packed_bytes, const float* scales) {
  GemmWeights internal;
  if (!gemm_weight_type(type, &internal)) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights: weights can be f32, f16, bf16 or i8, not %s",
                         dtype_name(type));
  }
  const size_t need = packed_dense_weights_bytes(type, out, in);
  if (need == 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights: out and in must be 1 to 2^24 (got %zu x %zu)", out,
                         in);
  }
  if (w == nullptr || packed == nullptr) {
    return Status::error(StatusCode::kInvalidArgument, "pack_dense_weights: null w or packed");
  }
  if (packed_bytes < need) {
    return Status::error(StatusCode::kResourceExhausted,
                         "pack_dense_weights: buffer of %zu bytes, %zu needed", packed_bytes, need);
  }
  if (reinterpret_cast<uintptr_t>(packed) % 4 != 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights: packed must be 4-byte aligned");
  }
  kernels::PackFailure failure;
  if (!kernels::gemm_pack(internal, w, out, in, scales, static_cast<uint8_t*>(packed), &failure)) {
    if (failure.col == in) {
      return Status::error(StatusCode::kInvalidArgument, "pack_dense_weights: scales[%zu]: %s",
                           failure.row, failure.why);
    }
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights: w[%zu][%zu] cannot be stored as %s (%s)", failure.row,
                         failure.col, dtype_name(type), failure.why);
  }
  return need;
}

size_t packed_dense_weights_int8_dot_bytes(size_t out, size_t in) {
  if (!valid_dim(out) || !valid_dim(in) || in > kMaxInt8GemmK) return 0;
  return kernels::qgemm_packed_bytes(out, in);
}

Result<size_t> pack_dense_weights_int8_dot(const float* w, size_t out, size_t in, void* packed,
                                           size_t packed_bytes, const float* scales) {
  const size_t need = packed_dense_weights_int8_dot_bytes(out, in);
  if (need == 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights_int8_dot: out must be 1 to 2^24 and in 1 to 2^16 "
                         "(got %zu x %zu)",
                         out, in);
  }
  if (w == nullptr || packed == nullptr) {
    return Status::error(StatusCode::kInvalidArgument, "pack_dense_weights_int8_dot: null w or packed");
  }
  if (packed_bytes < need) {
    return Status::error(StatusCode::kResourceExhausted,
                         "pack_dense_weights_int8_dot: buffer of %zu bytes, %zu needed", packed_bytes,
                         need);
  }
  if (reinterpret_cast<uintptr_t>(packed) % 4 != 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights_int8_dot: packed must be 4-byte aligned");
  }
  kernels::PackFailure failure;
  if (!kernels::qgemm_pack(w, out, in, scales, static_cast<uint8_t*>(packed), &failure)) {
    if (failure.col == in) {
      return Status::error(StatusCode::kInvalidArgument,
                           "pack_dense_weights_int8_dot: scales[%zu]: %s", failure.row, failure.why);
    }
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights_int8_dot: w[%zu][%zu] cannot be stored as i8 (%s)",
                         failure.row, failure.col, failure.why);
  }
  return need;
}

size_t packed_dense_weights_int4_bytes(size_t out, size_t in, size_t group) {
  if (!valid_dim(out) || !valid_dim(in) || in > kMaxInt8GemmK || !kernels::q4_group_supported(group)) return 0;
  return kernels::q4_packed_bytes(out, in, group);
}

Result<size_t> pack_dense_weights_int4(const float* w, size_t out, size_t in, size_t group, void* packed,
                                       size_t packed_bytes) {
  const size_t need = packed_dense_weights_int4_bytes(out, in, group);
  if (need == 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights_int4: out must be 1 to 2^24, in 1 to 2^16 and the group "
                         "32, 64 or 128 (got %zu x %zu, group %zu)",
                         out, in, group);
  }
  if (w == nullptr || packed == nullptr) {
    return Status::error(StatusCode::kInvalidArgument, "pack_dense_weights_int4: null w or packed");
  }
  if (packed_bytes < need) {
    return Status::error(StatusCode::kResourceExhausted,
                         "pack_dense_weights_int4: buffer of %zu bytes, %zu needed", packed_bytes, need);
  }
  if (reinterpret_cast<uintptr_t>(packed) % 4 != 0) {
    return Status::error(StatusCode::kInvalidArgument, "pack_dense_weights_int4: packed must be 4-byte aligned");
  }
  kernels::PackFailure failure;
  if (!kernels::q4gemm_pack(w, out, in, group, static_cast<uint8_t*>(packed), &failure)) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights_int4: w[%zu][%zu] cannot be stored as i4 (%s)", failure.row,
                         failure.col, failure.why);
  }
  return need;
}

size_t gemm_workspace_bytes(const GemmParams& params) {
  const bool int4 = params.weight_type == DType::kI4;
  if (!(params.int8_activations || int4) || !valid_dim(params.m) || !valid_dim(params.k) ||
      params.k > kMaxInt8GemmK) {
    return 0;
  }
  if (int4) {
    if (!kernels::q4_group_supported(params.int4_group)) return 0;
    return kernels::q4_workspace_bytes(params.m, params.k, params.int4_group);
  }
  return kernels::qgemm_workspace_bytes(params.m, params.k);
}

Status gemm(const GemmParams& params, ParallelFor* parallel) {
  return gemm_with_kernels(params, kernels::kBestKernels, parallel);
}

Status gemm_reference(const GemmParams& params) {
  FOCAL_RETURN_IF_ERROR(check_gemm_params(params));
  if (params.weight_type == DType::kI4) {
    kernels::q4gemm_reference(describe_q4gemm(params));
  } else if (params.int8_activations) {
    kernels::qgemm_reference(describe_qgemm(params));
  } else {
    kernels::gemm_reference_packed(describe_gemm(params));
  }
  return Status();
}

const char* gemm_isa() { return kernels::best_kernels<kernels::GemmKernelTable>()->isa; }

const char* gemm_int8_isa() { return kernels::best_qgemm_kernels().isa; }

const char* gemm_int4_isa() { return kernels::best_q4gemm_kernels().isa; }

}  // namespace focal
