// Internal: run the GEMM family on a chosen kernel table, and list the tables this binary
// has and this CPU can run (tests sweep every one; benchmarks compare them).
#pragma once

#include "focal/gemm.h"
#include "gemm/gemm.h"

namespace focal {


Status gemm_with_kernels(const GemmParams& params, const kernels::GemmKernelTable* kernels,
                         ParallelFor* parallel);

}  // namespace focal
