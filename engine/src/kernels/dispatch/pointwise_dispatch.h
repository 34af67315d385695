// Internal: the kernel families around attention and GEMM that transformers and RNNs
// spend the rest of their time in (normalization, softmax, elementwise, embedding,
// position, pooling, recurrent; engine/src/kernels/<family>/), behind one entry point per op
// that runs the best kernels for this CPU (chosen once), or a given set (tests sweep
// every usable one; benchmarks compare them).
//
// Ops whose arguments carry data that can be out of range (token ids, sequence
// lengths, position-encoding parameters) check them and return a Status before any
// kernel runs; the others trust their arguments, which the session checks when it
// loads a model (shapes) — they cannot fail. None allocates, none is thread-safe on
// overlapping outputs, none throws.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dispatch/kernel_set.h"
#include "elementwise/elementwise_kernels.h"
#include "embedding/embedding_kernels.h"
#include "focal/status.h"
#include "normalization/normalization_kernels.h"
#include "pooling/pooling_kernels.h"
#include "position/position_kernels.h"
#include "recurrent/recurrent_kernels.h"
#include "softmax/softmax_kernels.h"

namespace focal {

// Normalization over the last axis of dense [rows, width] rows; y may alias x.
// See normalization/normalization_kernels.h for the exact formulas.
void layernorm(const kernels::LayerNormParams& p, const float* x, const float* gamma,
               const float* beta, float* y, const kernels::KernelSet& k = kernels::kBestKernels);
void rmsnorm(const kernels::LayerNormParams& p, const float* x, const float* gamma, float* y,
             const kernels::KernelSet& k = kernels::kBestKernels);
void l2_normalize(const kernels::LayerNormParams& p, const float* x, float* y,
                  const kernels::KernelSet& k = kernels::kBestKernels);

// Softmax over the last axis of dense [rows, width] rows (-inf entries give 0, a row of
// -inf gives zeros); y may alias x.
void softmax(size_t rows, size_t width, const float* x, float* y,
             const kernels::KernelSet& k = kernels::kBestKernels);

// y = a + b over count elements; y may alias a or b.
void residual_add(size_t count, const float* a, const float* b, float* y,
                  const kernels::KernelSet& k = kernels::kBestKernels);

// y = silu(a) * b and y = gelu(a) * b over [rows, width] (two inputs, or the halves of
// one [rows, 2 * width] GEMM output: see elementwise/elementwise_kernels.h).
void swiglu(const kernels::GatedParams& p, const float* a, const float* b, float* y,
            const kernels::KernelSet& k = kernels::kBestKernels);
void geglu(const kernels::GatedParams& p, kernels::GeluForm form, const float* a, const float* b,
           float* y, const kernels::KernelSet& k = kernels::kBestKernels);

// out[t] = table[ids[t]] * scale. Refuses (kOutOfRange), before copying anything, the
// first id outside [0, vocab), naming its position and value; kInvalidArgument for a
// null pointer, a zero dim or vocab, an unknown table type or layout, or a type its layout
// cannot hold (bf16 rows, a non-int8 int8-dot table). A packed table's byte size is the
// caller's to check (the loader checks a model's).
Status embedding_gather(const kernels::EmbeddingParams& p,
                        const kernels::KernelSet& k = kernels::kBestKernels);

// Rotary position embedding (position/position_kernels.h). kInvalidArgument for an odd or too
// large rotary_dim, a head_dim of 0, theta not finite and > 0, or null x / y.
Status rope(const kernels::RopeParams& p, const kernels::KernelSet& k = kernels::kBestKernels);

// Sinusoidal position encoding (position/position_kernels.h). kInvalidArgument for timescales
// not finite and > 0, a dim of 0, or a null out.
Status sinusoidal_encoding(const kernels::SinusoidParams& p,
                           const kernels::KernelSet& k = kernels::kBestKernels);

// Masked mean pooling of [batch, seq, dim] over the first lengths[b] positions (zeros
// for length 0). Refuses (kOutOfRange) a length outside [0, seq], naming it.
Status mean_pool(const kernels::PoolParams& p, const kernels::KernelSet& k = kernels::kBestKernels);
// CLS pooling: out[b] = x[b, 0] (seq >= 1).
void cls_pool(const kernels::PoolParams& p, const kernels::KernelSet& k = kernels::kBestKernels);

// The fused pointwise step of an LSTM / GRU cell after its two GEMMs
// (recurrent/recurrent_kernels.h states the exact inputs).
void lstm_cell(const kernels::LstmCellParams& p,
               const kernels::KernelSet& k = kernels::kBestKernels);
void gru_cell(const kernels::GruCellParams& p, const kernels::KernelSet& k = kernels::kBestKernels);

}  // namespace focal
