// Internal: run the attention family on a chosen kernel table, and list the tables this
// binary has and this CPU can run (tests sweep every one; benchmarks compare them).
#pragma once

#include "attention/attention.h"
#include "focal/attention.h"

namespace focal {


Status attention_with_kernels(const AttentionParams& params,
                              const kernels::AttentionKernelTable* kernels, void* workspace,
                              size_t workspace_bytes, ParallelFor* parallel);

}  // namespace focal
