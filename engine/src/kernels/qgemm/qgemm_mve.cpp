// The Helium (MVE, Cortex-M55) int8 GEMM variant. Its one multiply is VMLADAVA.S8: 16
// int8 x int8 products added across the vector into a 32-bit core register, exactly
// (each product fits 15 bits, a sum of K of them stays below 2^31 for K <= kQGemmMaxK).
//
// The 16 bytes must be one output's: two consecutive 8-k groups of an output sit 256
// bytes apart in a panel (qgemm_kernels.h), so one VLDRD gather of two doublewords reads
// them (as word accesses, which must be 4-byte aligned: the packed weights are, checked
// by gemm_api.cpp, and every offset here is a multiple of 8), and the activation row's
// 16 bytes of those k are contiguous (byte loads, any alignment). A step of the inner
// loop covers two groups of kRows rows x kOutputs outputs: kOutputs gathers, one add
// that moves their address vector on, kRows row loads and kRows * kOutputs VMLADAVAs,
// the sums staying in core registers for the whole of K.
//
// Why 3 rows x 2 outputs: VMLADAVA accumulates only into even core registers (r0, r2,
// ..., r12, lr) and the low-overhead loop takes lr, which leaves 7 for sums; 2 x 4 (8
// sums) made gcc move a sum through the stack on every step, 3 x 2 needs 6 (13
// instructions per step, 1.08 per row, output and 8 k). A single row (GEMV, the last of
// M) takes 4 outputs, sharing its row load among more outputs.
// An odd last group is read 8 bytes at a time, widened to 16 bits (VLDRB.S16,
// VMLADAVA.S16), so no load reaches past a row or a panel.
#include <arm_mve.h>

#include "qgemm/qgemm_driver.hpp"

#if !defined(__ARM_FEATURE_MVE)
#error "qgemm_mve.cpp needs MVE (-mcpu=cortex-m55)"
#endif

namespace focal {
namespace kernels {
namespace {

constexpr uint32_t kPairBytes = 2 * kQGemmPanelGroupBytes;  // weights of two groups: 512

// The two-group weight vectors of kOutputs outputs at `at` (lane 0: group 2p of the first
// output, lane 1: group 2p + 1), output j's at byte offset 8 j.
template <size_t kOutputs>
void gather_pair(uint64x2_t at, int8x16_t* wv) {
  static_assert(kOutputs <= 4, "more outputs than gathers written out");
  wv[0] = vreinterpretq_s8_s64(vldrdq_gather_base_s64(at, 0));
  if (kOutputs > 1) wv[1] = vreinterpretq_s8_s64(vldrdq_gather_base_s64(at, 1 * kQGemmGroup));
  if (kOutputs > 2) wv[2] = vreinterpretq_s8_s64(vldrdq_gather_base_s64(at, 2 * kQGemmGroup));
  if (kOutputs > 3) wv[3] = vreinterpretq_s8_s64(vldrdq_gather_base_s64(at, 3 * kQGemmGroup));
}

// The last group of an odd count, 8 k: acc[r][j] += x[r][group] . last[j], widened to
// 16 bits.
template <size_t kRows, size_t kOutputs>
void add_last_group(const int8_t* const* x, size_t group, const int8_t* last,
                    int32_t (*acc)[kOutputs]) {
#pragma GCC unroll 4
  for (size_t r = 0; r < kRows; ++r) {
    const int16x8_t xv = vldrbq_s16(x[r] + group * kQGemmGroup);
#pragma GCC unroll 4
    for (size_t j = 0; j < kOutputs; ++j) {
      acc[r][j] = vmladavaq_s16(acc[r][j], xv, vldrbq_s16(last + j * kQGemmGroup));
    }
  }
}

// Sums of kRows rows (x[r]: their quantized rows) against the kOutputs outputs whose
// first group starts at `w`, over `groups` groups, into c[r * 32 + j]. Not inlined into
// the loop over the panel's outputs, whose values would take the registers the sums need.
template <size_t kRows, size_t kOutputs>
__attribute__((noinline)) void tile_step(const int8_t* const* x, const int8_t* w, size_t groups,
                                         int32_t* c) {
  int32_t acc[kRows][kOutputs] = {};
  // The address vector as 32-bit lanes: 0 (group 2p) and 2 (group 2p + 1); 1 and 3 are
  // the high words of the 64-bit lanes, kept 0. Lane by lane, not vcreateq: gcc 12 puts
  // vcreateq's first argument in the high half. gcc 12 also builds the write-back gather
  // from two gathers, so a 32-bit add moves the vector on instead.
  const uint32_t base = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(w));
  uint32x4_t pair = vsetq_lane_u32(base, vdupq_n_u32(0), 0);
  pair = vsetq_lane_u32(base + kQGemmPanelGroupBytes, pair, 2);
  const uint32x4_t next_pair = vsetq_lane_u32(kPairBytes, vsetq_lane_u32(kPairBytes, vdupq_n_u32(0), 0), 2);
  const int8_t* row[kRows];
#pragma GCC unroll 4
  for (size_t r = 0; r < kRows; ++r) row[r] = x[r];
  // A do-while: at -Os gcc lays a for loop out with its test on top and a branch back.
  size_t p = groups / 2;
  if (p > 0) do {
    int8x16_t wv[kOutputs];
    gather_pair<kOutputs>(vreinterpretq_u64_u32(pair), wv);
    pair = vaddq_u32(pair, next_pair);
#pragma GCC unroll 4
    for (size_t r = 0; r < kRows; ++r) {
      const int8x16_t xv = vld1q_s8(row[r]);
      row[r] += 2 * kQGemmGroup;
#pragma GCC unroll 4
      for (size_t j = 0; j < kOutputs; ++j) acc[r][j] = vmladavaq_s8(acc[r][j], xv, wv[j]);
    }
  } while (--p > 0);
  if (groups % 2 != 0) {
    add_last_group<kRows, kOutputs>(x, groups - 1, w + (groups - 1) * kQGemmPanelGroupBytes, acc);
  }
#pragma GCC unroll 4
  for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (size_t j = 0; j < kOutputs; ++j) c[r * kGemmPanel + j] = acc[r][j];
  }
}

template <size_t kRows, size_t kOutputs>
void tile_of(const int8_t* const* x, const int8_t* panel, size_t groups, int32_t* c) {
  static_assert(kGemmPanel % kOutputs == 0, "steps must tile the panel");
  for (size_t j = 0; j < kGemmPanel; j += kOutputs) {
    tile_step<kRows, kOutputs>(x, panel + j * kQGemmGroup, groups, c + j);
  }
}

struct MveMicro {
  static constexpr size_t kTileRows = 3;
  static constexpr uint8_t kOffset = 0;

  static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
                   size_t groups, int32_t* c) {
    const int8_t* x[kTileRows];
    for (size_t r = 0; r < kTileRows; ++r) {
      x[r] = reinterpret_cast<const int8_t*>(a + (r < rows ? r : 0) * a_stride);
    }
    if (rows == 3) {
      tile_of<3, 2>(x, panel, groups, c);
    } else if (rows == 2) {
      tile_of<2, 2>(x, panel, groups, c);
    } else {
      tile_of<1, 4>(x, panel, groups, c);
    }
  }

  // Plain loops (the reference's bits): MVE's float arithmetic flushes subnormals, which
  // would change amax, and so the scale, of a row of subnormal values.
  static void quantize_rows(const QGemmProblem& p, size_t row_begin, size_t row_end) {
    quantize_rows_plain<kOffset>(p, row_begin, row_end);
  }
};

constexpr QGemmKernelTable kMveQGemm = QGemmDriver<MveMicro>::table("mve");

}  // namespace

const QGemmKernelTable* qgemm_mve_kernels() { return &kMveQGemm; }

}  // namespace kernels
}  // namespace focal
