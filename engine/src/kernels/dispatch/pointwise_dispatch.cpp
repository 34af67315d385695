// The pointwise families' entry points: each family's best table (or a given set's),
// check what can be out of range in the data, run the kernels.
#include <cmath>

#include "dispatch/pointwise_dispatch.h"

namespace focal {
namespace {

Status invalid(const char* op, const char* what) {
  return Status::error(StatusCode::kInvalidArgument, "%s: %s", op, what);
}

bool positive_finite(float value) { return value > 0.0f && std::isfinite(value); }

}  // namespace

void layernorm(const kernels::LayerNormParams& p, const float* x, const float* gamma,
               const float* beta, float* y, const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::normalization)->layernorm(p, x, gamma, beta, y);
}

void rmsnorm(const kernels::LayerNormParams& p, const float* x, const float* gamma, float* y,
             const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::normalization)->rmsnorm(p, x, gamma, y);
}

void l2_normalize(const kernels::LayerNormParams& p, const float* x, float* y,
                  const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::normalization)->l2_normalize(p, x, y);
}

void softmax(size_t rows, size_t width, const float* x, float* y, const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::softmax)->softmax(rows, width, x, y);
}

void residual_add(size_t count, const float* a, const float* b, float* y,
                  const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::elementwise)->add(count, a, b, y);
}

void swiglu(const kernels::GatedParams& p, const float* a, const float* b, float* y,
            const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::elementwise)->swiglu(p, a, b, y);
}

void geglu(const kernels::GatedParams& p, kernels::GeluForm form, const float* a, const float* b,
           float* y, const kernels::KernelSet& k) {
  if (form == kernels::GeluForm::kTanh) {
    kernels::kernels_of(k, &kernels::KernelSet::elementwise)->geglu_tanh(p, a, b, y);
  } else {
    kernels::kernels_of(k, &kernels::KernelSet::elementwise)->geglu_erf(p, a, b, y);
  }
}

Status embedding_gather(const kernels::EmbeddingParams& p, const kernels::KernelSet& k) {
  if (p.count == 0) return Status();
  if (p.table == nullptr || p.ids == nullptr || p.out == nullptr) {
    return invalid("embedding", "table, ids and out must not be null");
  }
  if (p.dim == 0 || p.vocab == 0) return invalid("embedding", "dim and vocab must be >= 1");
  using kernels::EmbeddingLayout;
  using kernels::EmbeddingType;
  if (p.type != EmbeddingType::kF32 && p.type != EmbeddingType::kF16 && p.type != EmbeddingType::kBF16 &&
      p.type != EmbeddingType::kI8) {
    return invalid("embedding", "unknown table type");
  }
  if (p.layout != EmbeddingLayout::kRows && p.layout != EmbeddingLayout::kDensePanels &&
      p.layout != EmbeddingLayout::kInt8DotPanels) {
    return invalid("embedding", "unknown table layout");
  }
  // Row-major tables are f32, f16 or int8; the int8-dot layout holds int8 only.
  if ((p.layout == EmbeddingLayout::kRows && p.type == EmbeddingType::kBF16) ||
      (p.layout == EmbeddingLayout::kInt8DotPanels && p.type != EmbeddingType::kI8)) {
    return invalid("embedding", "this table type cannot be stored in this layout");
  }
  if (p.type == kernels::EmbeddingType::kI8 && p.row_scales == nullptr) {
    return invalid("embedding", "an int8 table needs its row scales");
  }
  for (size_t t = 0; t < p.count; ++t) {
    const int32_t id = p.ids[t];
    if (id < 0 || static_cast<size_t>(id) >= p.vocab) {
      return Status::error(StatusCode::kOutOfRange,
                           "embedding: ids[%lu] = %ld outside the vocabulary 0..%lu",
                           static_cast<unsigned long>(t), static_cast<long>(id),
                           static_cast<unsigned long>(p.vocab - 1));
    }
  }
  kernels::kernels_of(k, &kernels::KernelSet::embedding)->gather(p);
  return Status();
}

Status rope(const kernels::RopeParams& p, const kernels::KernelSet& k) {
  const size_t rotary = p.rotary_dim != 0 ? p.rotary_dim : p.head_dim;
  if (p.head_dim == 0) return invalid("rope", "head_dim must be >= 1");
  if (rotary % 2 != 0 || rotary > p.head_dim) {
    return Status::error(
        StatusCode::kInvalidArgument, "rope: rotary_dim %lu must be even and at most head_dim %lu",
        static_cast<unsigned long>(rotary), static_cast<unsigned long>(p.head_dim));
  }
  if (!positive_finite(p.theta)) return invalid("rope", "theta must be finite and > 0");
  if (p.layout != kernels::RopeLayout::kHalfSplit &&
      p.layout != kernels::RopeLayout::kInterleaved) {
    return invalid("rope", "unknown layout");
  }
  if (p.batch == 0 || p.seq == 0 || p.heads == 0) return Status();
  if (p.x == nullptr || p.y == nullptr) return invalid("rope", "x and y must not be null");
  kernels::kernels_of(k, &kernels::KernelSet::position)->rope(p);
  return Status();
}

Status sinusoidal_encoding(const kernels::SinusoidParams& p, const kernels::KernelSet& k) {
  if (p.dim == 0) return invalid("sinusoidal encoding", "dim must be >= 1");
  if (!positive_finite(p.min_timescale) || !positive_finite(p.max_timescale)) {
    return invalid("sinusoidal encoding", "timescales must be finite and > 0");
  }
  if (p.layout != kernels::SinusoidLayout::kInterleaved &&
      p.layout != kernels::SinusoidLayout::kConcatenated) {
    return invalid("sinusoidal encoding", "unknown layout");
  }
  if (p.spacing != kernels::TimescaleSpacing::kVaswani &&
      p.spacing != kernels::TimescaleSpacing::kTensor2Tensor) {
    return invalid("sinusoidal encoding", "unknown timescale spacing");
  }
  if (p.batch == 0 || p.positions == 0) return Status();
  if (p.out == nullptr) return invalid("sinusoidal encoding", "out must not be null");
  kernels::kernels_of(k, &kernels::KernelSet::position)->sinusoid(p);
  return Status();
}

Status mean_pool(const kernels::PoolParams& p, const kernels::KernelSet& k) {
  if (p.batch == 0 || p.dim == 0) return Status();
  if (p.out == nullptr || (p.x == nullptr && p.seq != 0)) {
    return invalid("mean_pool", "x and out must not be null");
  }
  if (p.lengths != nullptr) {
    for (size_t b = 0; b < p.batch; ++b) {
      const int32_t length = p.lengths[b];
      if (length < 0 || static_cast<size_t>(length) > p.seq) {
        return Status::error(StatusCode::kOutOfRange,
                             "mean_pool: lengths[%lu] = %ld outside 0..seq (%lu)",
                             static_cast<unsigned long>(b), static_cast<long>(length),
                             static_cast<unsigned long>(p.seq));
      }
    }
  }
  kernels::kernels_of(k, &kernels::KernelSet::pooling)->mean_pool(p);
  return Status();
}

void cls_pool(const kernels::PoolParams& p, const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::pooling)->cls_pool(p);
}

void lstm_cell(const kernels::LstmCellParams& p, const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::recurrent)->lstm_cell(p);
}

void gru_cell(const kernels::GruCellParams& p, const kernels::KernelSet& k) {
  kernels::kernels_of(k, &kernels::KernelSet::recurrent)->gru_cell(p);
}

}  // namespace focal
