// The activation functions an op can apply to its output, for the public GEMM API, the
// ops and the kernels alike. The model schema's Activation enum has the same values
// (engine/internal/focal/internal/graph.h checks them against each other).
#pragma once

#include <cstdint>

namespace focal {

enum class Activation : uint8_t {
  kNone = 0,
  kRelu = 1,      // max(x, 0)
  kGeluErf = 2,   // 0.5 x (1 + erf(x / sqrt 2))
  kGeluTanh = 3,  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))   (GPT-2's gelu_new)
  kSilu = 4,      // x / (1 + exp(-x))
  kTanh = 5,
  kSigmoid = 6,  // 1 / (1 + exp(-x))   (binary classifier heads)
};

}  // namespace focal
