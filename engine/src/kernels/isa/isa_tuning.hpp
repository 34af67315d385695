// How an instruction set's kernel set is tuned: what each isa/<isa>/isa_traits.hpp
// states, through FOCAL_ISA_TUNING, for dispatch/kernel_set_instance.cpp (the one
// translation unit per instruction set that reads it).
//
//   arch: the Vec<Arch> implementation (simd/vec_*.hpp) and xsimd architecture.
//   name: the set's name in reports ("avx512").
//   gemm_rows x gemm_vectors: the GEMM register tile (gemm/gemm_simd.hpp), in rows by
//     vectors of output features; gemv_sums: vector accumulators of the GEMV path;
//     gemm_k_block: K steps per block (the x rows and panel part it keeps in L1/L2).
//   attention_key_vectors: key vectors per register tile of the tiled attention
//     (attention/attention_simd.hpp: 4 rows x this many vectors of scores).
//   scoring_sum_vectors: vectors of output features weighted_sum keeps in registers
//     (scoring/scoring_simd.hpp; each needs one load per FMA).
#pragma once

#include <cstddef>

// In an unnamed namespace: nothing here may be merged across instruction sets.
#define FOCAL_ISA_TUNING(arch, name, gemm_rows, gemm_vectors, gemv_sums, gemm_k_block, \
                         attention_key_vectors, scoring_sum_vectors)                   \
  namespace focal {                                                                    \
  namespace kernels {                                                                  \
  namespace {                                                                          \
  using IsaArch = arch;                                                                \
  constexpr const char* kIsaName = (name);                                             \
  constexpr size_t kGemmTileRows = (gemm_rows), kGemmTileVectors = (gemm_vectors);     \
  constexpr size_t kGemvAccumulators = (gemv_sums), kGemmKBlock = (gemm_k_block);      \
  constexpr size_t kAttentionKeyVectors = (attention_key_vectors);                     \
  constexpr size_t kScoringSumVectors = (scoring_sum_vectors);                         \
  }                                                                                    \
  }                                                                                    \
  }
