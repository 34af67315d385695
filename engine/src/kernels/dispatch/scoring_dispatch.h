// Internal: run the attention scoring family on a chosen kernel table, and list the
// tables this binary has and this CPU can run (tests sweep every one; benchmarks
// compare them).
#pragma once

#include "focal/attention_scoring.h"
#include "scoring/scoring.h"

namespace focal {


Status additive_attention_with_kernels(const AdditiveAttentionParams& params,
                                       const kernels::ScoringKernelTable* kernels, void* workspace,
                                       size_t workspace_bytes);
Status luong_attention_with_kernels(const LuongAttentionParams& params,
                                    const kernels::ScoringKernelTable* kernels, void* workspace,
                                    size_t workspace_bytes);

}  // namespace focal
