// The sinusoidal position encoding's contract and its scalar reference, shared with the
// converter (a spec's sinusoidal position table is computed by this same reference,
// so the table it stores is the one the engine's kernels would compute). The kernel
// tables that implement it per instruction set are engine-private
// (src/kernels/position/position_kernels.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace kernels {

enum class SinusoidLayout {
  kInterleaved,  // pe[p, 2i] = sin, pe[p, 2i + 1] = cos (Vaswani et al., the Annotated Transformer)
  kConcatenated,  // pe[p, i] = sin, pe[p, dim/2 + i] = cos (tensor2tensor, fairseq)
};

// How the dim/2 timescales are spaced geometrically between min and max:
enum class TimescaleSpacing {
  kVaswani,        // inv_i = (1/min) (min/max)^(i / (dim/2)): 1 / 10000^(2i / dim), i < dim/2
  kTensor2Tensor,  // inv_i = (1/min) (min/max)^(i / (dim/2 - 1)): the last one is 1/max
};

// out[b, p, :] (= or +=) the encoding of position position_offset + p, for each batch b
// ([batch, positions, dim], dense). An odd dim's last column is 0 (tensor2tensor pads).
struct SinusoidParams {
  size_t batch = 1, positions = 0, dim = 0;
  int64_t position_offset = 0;
  float min_timescale = 1.0f, max_timescale = 10000.0f;
  SinusoidLayout layout = SinusoidLayout::kInterleaved;
  TimescaleSpacing spacing = TimescaleSpacing::kVaswani;
  bool accumulate = false;  // true: out += encoding (added to embeddings in place)
  float* out = nullptr;
};

// Writes (or adds) the encoding in f32 as the kernels do, with plain scalar loops.
void sinusoid_reference(const SinusoidParams& p);

}  // namespace kernels
}  // namespace focal
