// When an op's work goes to the workers of a ParallelFor, and when it stays on the
// calling thread: one threshold for the GEMM and attention dispatch.
#pragma once

#include <cstdint>

namespace focal {

// Below this many multiply-adds an op (a GEMM's m * n * k, attention's score and value
// products) runs on the calling thread: handing work to another thread and waiting for
// it costs more than the second core saves. Measured on Zen 5 (a 2-core KVM guest): a
// ThreadPool run of two empty tasks takes 0.25 us back to back (publish, join, close,
// check out); the other core must also fetch the op's input (k floats for a GEMV) and the
// caller later reads that core's outputs, each a few dozen cache lines moved between
// cores, about 0.5 us more at k = 768. One core does 16 (f32 GEMV from L3) to 60 (tiled
// f32, VNNI int8) multiply-adds per ns, so 64 Ki multiply-adds is 1 to 4 us of work:
// split in two it saves 0.5 to 2 us against about 0.75 us of cost, the smallest size
// that gains for every kind. (The story demo's 128 x 384 projection, 48 Ki, stays on
// one thread; its 128 x 512 layers and every layer of a 125 M-parameter Llama split.)
constexpr uint64_t kMinParallelMacs = uint64_t{64} << 10;

}  // namespace focal
