// The vpdpbusd loop (AVX-512 VNNI, u8 x s8 -> s32, 64 multiply-adds per zmm instruction);
// compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni, called only on a CPU
// with AVX512_VNNI.
#include <immintrin.h>

#include "int8_dot_loop_impl.h"

namespace focal_bench {
namespace detail {
namespace {

struct VnniOps {
  using Acc = __m512i;
  static constexpr size_t kMultiplyAdds = 64;
  static Acc splat_acc(int32_t v) { return _mm512_set1_epi32(v); }
  // The same byte for both operands: vpdpbusd reads the first as unsigned, the second
  // as signed.
  static __m512i operand(int32_t v) { return _mm512_set1_epi8(static_cast<char>(v)); }
  static Acc dot(Acc acc, __m512i x, __m512i y) { return _mm512_dpbusd_epi32(acc, x, y); }
  static Acc add(Acc a, Acc b) { return _mm512_add_epi32(a, b); }
  // Through memory: GCC 12's _mm512_reduce_add_epi32 trips -Wuninitialized in its header.
  static int32_t lane_sum(Acc v) {
    alignas(64) uint32_t lanes[16];
    _mm512_store_si512(lanes, v);
    uint32_t sum = 0;
    for (uint32_t lane : lanes) sum += lane;
    return static_cast<int32_t>(sum);
  }
};

}  // namespace

const Int8DotKernels* int8_dot_kernels_avx512vnni() { return int8_dot_table<VnniOps>("avx512vnni"); }

}  // namespace detail
}  // namespace focal_bench
