// The dot_rows this build runs (qint_kernels.h), chosen at build time by the core's
// instruction set: Helium on the Cortex-M55, the DSP extension on the Cortex-M4 and M7,
// the plain-C twin (reference.cpp) everywhere else. Each keeps one named accumulator per
// row (kRows <= 4 of them) and loads the shared x once per step for all rows.
#include <cstring>

#include "qint/qint_kernels.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define FOCAL_QINT_DOT_MVE 1
#elif defined(__ARM_FEATURE_DSP) && !defined(__aarch64__)
#include <arm_acle.h>
#define FOCAL_QINT_DOT_DSP 1
#endif

namespace focal {
namespace kernels {
namespace {

// A block of up to four rows: a block of fewer reads its first row in place of the
// missing ones (the extra sums are dropped), so there is one kernel with four named
// accumulators and no per-row loop for gcc to keep in memory at -Os.
struct RowBlock {
  const int8_t* row[4];
  int32_t start[4];
  RowBlock(const int8_t* w, size_t w_stride, size_t rows, const int32_t* bias) {
    for (size_t r = 0; r < 4; ++r) {
      row[r] = r < rows ? w + r * w_stride : w;
      start[r] = bias != nullptr && r < rows ? bias[r] : 0;
    }
  }
};

#if defined(FOCAL_QINT_DOT_MVE)
// 16 k per step: VCTP8 predicates the tail, the zeroing loads read nothing past a row,
// VMLADAVA.S8 adds the 16 products into the row's core register, exactly.
void dot_block4(const int8_t* x, const RowBlock& b, size_t k, int32_t* out) {
  int32_t s0 = b.start[0], s1 = b.start[1], s2 = b.start[2], s3 = b.start[3];
  for (size_t i = 0; i < k; i += 16) {
    const mve_pred16_t live = vctp8q(uint32_t(k - i));
    const int8x16_t xv = vldrbq_z_s8(x + i, live);
    s0 = vmladavaq_s8(s0, xv, vldrbq_z_s8(b.row[0] + i, live));
    s1 = vmladavaq_s8(s1, xv, vldrbq_z_s8(b.row[1] + i, live));
    s2 = vmladavaq_s8(s2, xv, vldrbq_z_s8(b.row[2] + i, live));
    s3 = vmladavaq_s8(s3, xv, vldrbq_z_s8(b.row[3] + i, live));
  }
  out[0] = s0, out[1] = s1, out[2] = s2, out[3] = s3;
}
// Four rows w_stride apart against `tokens` rows of x (k = 16 steps apart), one call per
// block of four outputs. Per token the sums start from the bias and the row pointers from
// row 0; each full step of 16 k is 10 instructions: one load of x, per row a load and a
// VMLADAVA, the low-overhead loop's LE, every pointer advanced by its load's writeback;
// the four sums are stored (14 instructions around each token's steps). A naked function
// with its registers named here: gcc 12 kept an index in the intrinsics' loop, recomputed
// five addresses per step and spilled them (27 instructions per step). VMLADAVA's
// accumulators must be even registers (r4, r6, r8, r10); q0-q3 are the caller's to lose
// (the ABI preserves q4-q7).
struct RowsTokens {
  const int8_t* x;  // [tokens][16 steps]
  const int8_t* w;  // row 0
  size_t w_stride;
  size_t steps;         // >= 1
  size_t tokens;        // >= 1
  const int32_t* bias;  // [4], read before each token's sums are stored (may be `sums`)
  int32_t* sums;        // [tokens][4]
};
__attribute__((naked)) void mve_rows_tokens(const RowsTokens* /*r*/) {
  __asm__ volatile(
      "push     {r4-r11, lr}\n\t"
      "ldr      r1, [r0]\n\t"
      "ldr      r9, [r0, #16]\n\t"
      "ldr      r11, [r0, #24]\n\t"
      "2:\n\t"
      "ldrd     r2, r3, [r0, #4]\n\t"  // row 0, stride
      "ldr      r12, [r0, #20]\n\t"
      "ldrd     r4, r6, [r12]\n\t"
      "ldrd     r8, r10, [r12, #8]\n\t"
      "add      r5, r2, r3, lsl #1\n\t"  // row 2
      "add      r7, r5, r3\n\t"          // row 3
      "add      r3, r2, r3\n\t"          // row 1
      "ldr      r12, [r0, #12]\n\t"
      "dls      lr, r12\n\t"
      "1:\n\t"
      "vldrb.u8 q0, [r1], #16\n\t"
      "vldrb.u8 q1, [r2], #16\n\t"
      "vmladava.s8 r4, q0, q1\n\t"
      "vldrb.u8 q2, [r3], #16\n\t"
      "vmladava.s8 r6, q0, q2\n\t"
      "vldrb.u8 q3, [r5], #16\n\t"
      "vmladava.s8 r8, q0, q3\n\t"
      "vldrb.u8 q1, [r7], #16\n\t"
      "vmladava.s8 r10, q0, q1\n\t"
      "le       lr, 1b\n\t"
      "strd     r4, r6, [r11], #8\n\t"
      "strd     r8, r10, [r11], #8\n\t"
      "subs     r9, r9, #1\n\t"
      "bne      2b\n\t"
      "pop      {r4-r11, pc}\n\t");
}

void rows_tokens_native(const int8_t* x, size_t tokens, const int8_t* w, size_t w_stride, size_t k,
                        const int32_t* bias, int32_t* sums) {
  if (tokens == 0) return;
  if (k == 0) {  // no steps: the sums are the bias
    for (size_t t = 0; t < tokens; ++t) std::memcpy(sums + 4 * t, bias, 4 * sizeof(int32_t));
    return;
  }
  const RowsTokens r{x, w, w_stride, k / 16, tokens, bias, sums};
  mve_rows_tokens(&r);
}

// One token: the full steps as above (the sums in place), then the last k % 16 in one
// predicated step whose zeroing loads read nothing past a row.
void dot_rows4_strided(const int8_t* x, const int8_t* w, size_t w_stride, size_t k, int32_t* s) {
  const size_t full = k - k % 16;
  if (full != 0) rows_tokens_native(x, 1, w, w_stride, full, s, s);
  if (full == k) return;
  const mve_pred16_t live = vctp8q(uint32_t(k - full));
  const int8x16_t xv = vldrbq_z_s8(x + full, live);
  const int8_t* row = w + full;
  s[0] = vmladavaq_s8(s[0], xv, vldrbq_z_s8(row, live));
  s[1] = vmladavaq_s8(s[1], xv, vldrbq_z_s8(row + w_stride, live));
  s[2] = vmladavaq_s8(s[2], xv, vldrbq_z_s8(row + 2 * w_stride, live));
  s[3] = vmladavaq_s8(s[3], xv, vldrbq_z_s8(row + 3 * w_stride, live));
}
constexpr const char* kIsa = "mve";
#elif defined(FOCAL_QINT_DOT_DSP)
// 4 k per step: one word of x and of each row (LDR: unaligned access is allowed on
// v7E-M and v7-A), SXTB16 sign-extends bytes 0 and 2 into two 16-bit halves and, with
// its rotation by 8, bytes 1 and 3; SMLAD adds both halves' products. The pairing is the
// same for x and w, so the sum is the plain dot product: 5 instructions per row and 4 k.
inline uint32_t load_word(const int8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
// SXTB16 Rd, Rm, ROR #8 in one instruction: gcc 12 emits a separate rotate for
// __sxtb16(__ror(v, 8)) (ACLE has no rotated form).
inline int16x2_t odd_bytes(uint32_t v) {
  int16x2_t out;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(out) : "r"(v));
  return out;
}
inline int32_t mac4(int32_t acc, int16x2_t x02, int16x2_t x13, const int8_t* w) {
  const uint32_t wv = load_word(w);
  return __smlad(x13, odd_bytes(wv), __smlad(x02, __sxtb16(wv), acc));
}

void dot_block4(const int8_t* x, const RowBlock& b, size_t k, int32_t* out) {
  int32_t s0 = b.start[0], s1 = b.start[1], s2 = b.start[2], s3 = b.start[3];
  const int8_t *w0 = b.row[0], *w1 = b.row[1], *w2 = b.row[2], *w3 = b.row[3];
  size_t i = 0;
  for (; i + 4 <= k; i += 4) {
    const uint32_t xv = load_word(x + i);
    const int16x2_t x02 = __sxtb16(xv), x13 = odd_bytes(xv);
    s0 = mac4(s0, x02, x13, w0 + i);
    s1 = mac4(s1, x02, x13, w1 + i);
    s2 = mac4(s2, x02, x13, w2 + i);
    s3 = mac4(s3, x02, x13, w3 + i);
  }
  for (; i < k; ++i) {
    const int32_t xi = x[i];
    s0 += xi * w0[i], s1 += xi * w1[i], s2 += xi * w2[i], s3 += xi * w3[i];
  }
  out[0] = s0, out[1] = s1, out[2] = s2, out[3] = s3;
}

// Four rows w_stride apart, 4 k per step, in 23 instructions: one word of x, its two
// SXTB16 halves, and per row a load, two SXTB16 and two SMLAD (the loop's compare and
// branch come once per two steps). Written in assembly because gcc 12 (-Os and -O2)
// keeps the four row pointers, four sums, x and the halves in more registers than the
// core has and reloads row pointers from the stack every step (36 instructions). Rows 1
// and 3 are read at an offset of w_stride from rows 0 and 2, so 13 registers hold the
// loop: 4 sums, x, rows 0 and 2, the stride, x's end and 4 temporaries. The sums are the
// same integers as the C loop's (exact int32 products).
#define FOCAL_DSP_ROW(sum, load)                  \
  "ldr    %[word], " load "\n\t"                  \
  "sxtb16 %[half], %[word]\n\t"                  \
  "sxtb16 %[word], %[word], ror #8\n\t"          \
  "smlad  %[" sum "], %[x02], %[half], %[" sum "]\n\t" \
  "smlad  %[" sum "], %[x13], %[word], %[" sum "]\n\t"
#define FOCAL_DSP_STEP                            \
  "ldr    %[word], [%[x]], #4\n\t"               \
  "sxtb16 %[x02], %[word]\n\t"                   \
  "sxtb16 %[x13], %[word], ror #8\n\t"           \
  FOCAL_DSP_ROW("s1", "[%[p0], %[stride]]")     \
  FOCAL_DSP_ROW("s0", "[%[p0]], #4")            \
  FOCAL_DSP_ROW("s3", "[%[p2], %[stride]]")     \
  FOCAL_DSP_ROW("s2", "[%[p2]], #4")

struct Rows4 {
  const int8_t *x, *p0, *p2;  // advanced past the k consumed
  int32_t s0, s1, s2, s3;
};

// `steps` steps of 4 k (pairs in the loop, then one more if odd).
void dsp_steps(Rows4& r, size_t stride, size_t steps) {
  uint32_t word, x02, x13, half;
  if (steps >= 2) {
    const int8_t* pair_end = r.x + 4 * (steps & ~size_t(1));
    __asm__ volatile("1:\n\t" FOCAL_DSP_STEP FOCAL_DSP_STEP
                     "cmp    %[x], %[end]\n\t"
                     "bne    1b"
                     : [s0] "+r"(r.s0), [s1] "+r"(r.s1), [s2] "+r"(r.s2), [s3] "+r"(r.s3), [x] "+r"(r.x),
                       [p0] "+r"(r.p0), [p2] "+r"(r.p2), [word] "=&r"(word), [x02] "=&r"(x02),
                       [x13] "=&r"(x13), [half] "=&r"(half)
                     : [stride] "r"(stride), [end] "r"(pair_end)
                     : "cc", "memory");
  }
  if (steps & 1) {
    __asm__ volatile(FOCAL_DSP_STEP
                     : [s0] "+r"(r.s0), [s1] "+r"(r.s1), [s2] "+r"(r.s2), [s3] "+r"(r.s3), [x] "+r"(r.x),
                       [p0] "+r"(r.p0), [p2] "+r"(r.p2), [word] "=&r"(word), [x02] "=&r"(x02),
                       [x13] "=&r"(x13), [half] "=&r"(half)
                     : [stride] "r"(stride)
                     : "memory");
  }
}
#undef FOCAL_DSP_STEP
#undef FOCAL_DSP_ROW

void dot_rows4_strided(const int8_t* x, const int8_t* w, size_t w_stride, size_t k, int32_t* s) {
  Rows4 r{x, w, w + 2 * w_stride, s[0], s[1], s[2], s[3]};
  dsp_steps(r, w_stride, k / 4);
  for (size_t i = 0; i < (k & 3); ++i) {  // the last k % 4, from where the steps stopped
    const int32_t xi = r.x[i];
    r.s0 += xi * r.p0[i], r.s1 += xi * r.p0[w_stride + i];
    r.s2 += xi * r.p2[i], r.s3 += xi * r.p2[w_stride + i];
  }
  s[0] = r.s0, s[1] = r.s1, s[2] = r.s2, s[3] = r.s3;
}

// One weight row against the kQIntTokens packed rows (qint_pack_tokens), 4 k per step in
// 13 instructions: the row's word and its two SXTB16 halves once, the rows' halves in two
// LDMs of four words, eight SMLAD; the compare and branch once per two steps. Naked, with
// its registers named here, because an LDM's register list must ascend and an inline asm
// operand cannot be told which register it gets. r0 packed and r1 w (both advanced), r2
// steps (>= 1), r3 the four sums (in and out); r3-r6 hold the sums, r7-r10 the packed
// words, r11 and r12 the row's halves, lr the sums' address.
#define FOCAL_DSP_TOKEN_STEP          \
  "ldr    r11, [r1], #4\n\t"          \
  "sxtb16 r12, r11\n\t"               \
  "sxtb16 r11, r11, ror #8\n\t"       \
  "ldm    r0!, {r7-r10}\n\t"          \
  "smlad  r3, r7, r12, r3\n\t"        \
  "smlad  r3, r8, r11, r3\n\t"        \
  "smlad  r4, r9, r12, r4\n\t"        \
  "smlad  r4, r10, r11, r4\n\t"       \
  "ldm    r0!, {r7-r10}\n\t"          \
  "smlad  r5, r7, r12, r5\n\t"        \
  "smlad  r5, r8, r11, r5\n\t"        \
  "smlad  r6, r9, r12, r6\n\t"        \
  "smlad  r6, r10, r11, r6\n\t"
__attribute__((naked)) void dsp_token_steps(const uint32_t* /*packed*/, const int8_t* /*w*/, size_t /*steps*/,
                                            int32_t* /*sums*/) {
  __asm__ volatile(
      "push   {r4-r11, lr}\n\t"
      "mov    lr, r3\n\t"
      "ldm    lr, {r3-r6}\n\t"
      "tst    r2, #1\n\t"
      "add    r2, r1, r2, lsl #2\n\t"  // the row's end (flags from the TST)
      "beq    2f\n\t"  // an even count: pairs only
      FOCAL_DSP_TOKEN_STEP
      "cmp    r1, r2\n\t"
      "beq    3f\n\t"
      "2:\n\t"
      FOCAL_DSP_TOKEN_STEP FOCAL_DSP_TOKEN_STEP
      "cmp    r1, r2\n\t"
      "bne    2b\n\t"
      "3:\n\t"
      "stm    lr, {r3-r6}\n\t"
      "pop    {r4-r11, pc}\n\t");
}
#undef FOCAL_DSP_TOKEN_STEP

void dot_tokens_native(const uint32_t* packed, const int8_t* w, size_t k, int32_t* sums) {
  const size_t steps = k / 4;
  if (steps != 0) dsp_token_steps(packed, w, steps, sums);
  for (size_t i = 4 * steps; i < k; ++i) {  // the last k % 4 (x's packed zeros beyond)
    for (size_t t = 0; t < kQIntTokens; ++t) sums[t] += packed_token_input(packed, t, i) * int32_t(w[i]);
  }
}
constexpr const char* kIsa = "dsp";
#endif

#if defined(FOCAL_QINT_DOT_MVE) || defined(FOCAL_QINT_DOT_DSP)
void dot_rows_native(const int8_t* x, const int8_t* w, size_t w_stride, size_t k, size_t rows,
                     const int32_t* bias, int32_t* sums) {
  int32_t all[4];
  if (rows == 4) {
    if (bias != nullptr) {
      sums[0] = bias[0], sums[1] = bias[1], sums[2] = bias[2], sums[3] = bias[3];
    } else {
      sums[0] = sums[1] = sums[2] = sums[3] = 0;
    }
    dot_rows4_strided(x, w, w_stride, k, sums);
    return;
  }
  dot_block4(x, RowBlock(w, w_stride, rows, bias), k, all);
  for (size_t r = 0; r < rows; ++r) sums[r] = all[r];
}
#if defined(FOCAL_QINT_DOT_DSP)
constexpr QIntKernelTable kNativeQInt{kIsa, dot_rows_native, dot_tokens_native, nullptr};
#else
constexpr QIntKernelTable kNativeQInt{kIsa, dot_rows_native, nullptr, rows_tokens_native};
#endif
#endif

}  // namespace

const QIntKernelTable& qint_kernels() {
#if defined(FOCAL_QINT_DOT_MVE) || defined(FOCAL_QINT_DOT_DSP)
  return kNativeQInt;
#else
  return qint_reference_kernels();
#endif
}

}  // namespace kernels
}  // namespace focal
