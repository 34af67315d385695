// The engine's one door to the GEMM kernels. Ops call run_gemm with parameters their
// load-time checks and the verifier validated; the public focal::gemm
// (api/gemm_api.cpp) checks the same parameters once (check_gemm_params), then runs them
// here. Both run on a kernel set: the best one unless a test or benchmark names another.
#pragma once

#include "dispatch/kernel_set.h"
#include "focal/gemm.h"
#include "gemm/gemm_kernels.h"
#include "q4gemm/q4gemm_kernels.h"
#include "qgemm/qgemm_kernels.h"

namespace focal {

// The kernels' weight format for a tensor type; false for types the GEMM has none for.
bool gemm_weight_type(DType type, kernels::GemmWeights* out);

// The kernels' view of parameters check_gemm_params accepts (default strides resolved,
// the i8 scales located in the packed weights).
kernels::GemmProblem describe_gemm(const GemmParams& params);

// The int8 GEMM's view of parameters with int8_activations (weights' scales and column
// sums located, the workspace cut into quantized rows and row scales).
kernels::QGemmProblem describe_qgemm(const GemmParams& params);

// The int4 GEMM's view of parameters with weight_type kI4 (the workspace cut into
// quantized rows, row scales and group sums).
kernels::Q4GemmProblem describe_q4gemm(const GemmParams& params);

// Everything focal::gemm refuses, as its Status (api/gemm_api.cpp).
Status check_gemm_params(const GemmParams& params);

// Runs a GEMM whose parameters check_gemm_params accepts (trusted: not checked again).
// Int8 activations run on `int8` (null: `set`'s int8 variant), with `set`'s epilogue.
// Int4 weights run on `int4` (null: `set`'s int4 variant).
void run_gemm(const GemmParams& params, ParallelFor* parallel,
              const kernels::KernelSet& set = kernels::kBestKernels,
              const kernels::QGemmKernelTable* int8 = nullptr,
              const kernels::Q4GemmKernelTable* int4 = nullptr);

// check_gemm_params, then run_gemm on `set` (tests sweep every usable set and variant).
Status gemm_with_kernels(const GemmParams& params, const kernels::KernelSet& set,
                         ParallelFor* parallel, const kernels::QGemmKernelTable* int8 = nullptr,
                         const kernels::Q4GemmKernelTable* int4 = nullptr);

}  // namespace focal
