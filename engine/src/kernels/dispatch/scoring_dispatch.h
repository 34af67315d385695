// The engine's one door to the attention scoring kernels (Bahdanau's additive and
// Luong's multiplicative attention over one query). Ops call run_additive_attention /
// run_luong_attention with parameters their load-time checks validated and a workspace
// the session sized; the public entry points (api/scoring_api.cpp) check the same
// parameters once, then run them here. Both run on a kernel set: the best one unless a
// test or benchmark names another.
#pragma once

#include "dispatch/kernel_set.h"
#include "focal/attention_scoring.h"
#include "scoring/scoring_kernels.h"

namespace focal {

constexpr const char* kAdditiveAttention = "additive_attention";
constexpr const char* kLuongAttention = "luong_attention";
constexpr size_t kScoringWorkspaceAlign = 64;  // the workspace is used from a 64-byte boundary

// Everything the public entry points refuse, as their Status (api/scoring_api.cpp).
Status check_additive_attention_params(const AdditiveAttentionParams& params, const void* workspace,
                                       size_t workspace_bytes);
Status check_luong_attention_params(const LuongAttentionParams& params, const void* workspace,
                                    size_t workspace_bytes);

// The key length is data (from a mask at run time): -1 (all keys) or 0..src_len.
Status check_scoring_key_length(const char* op, int32_t key_length, size_t src_len);

// Floats of workspace for src_len scores and, for Luong's general score, `projected`
// floats of W^T s, each array 64-byte aligned.
size_t scoring_workspace_floats(size_t src_len, size_t projected);

// Run scoring whose parameters and workspace the checks above accept (trusted: not
// checked again). Fail only on the data: a key length outside -1 or 0..src_len.
Status run_additive_attention(const AdditiveAttentionParams& params, void* workspace,
                              size_t workspace_bytes,
                              const kernels::KernelSet& set = kernels::kBestKernels);
Status run_luong_attention(const LuongAttentionParams& params, void* workspace,
                           size_t workspace_bytes,
                           const kernels::KernelSet& set = kernels::kBestKernels);

// The checks, then the run on `set` (tests sweep every usable set).
Status additive_attention_with_kernels(const AdditiveAttentionParams& params,
                                       const kernels::KernelSet& set, void* workspace,
                                       size_t workspace_bytes);
Status luong_attention_with_kernels(const LuongAttentionParams& params,
                                    const kernels::KernelSet& set, void* workspace,
                                    size_t workspace_bytes);

}  // namespace focal
