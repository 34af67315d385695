// The int4-weight GEMM (W4A8, groups of 32, 64 or 128 k) on every variant this CPU can
// run, against the scalar reference twin: bit for bit without an activation (integer
// sums are exact and every variant folds the group scales with the reference's FMA in
// the reference's order), on ragged N and K (across the 32-output panel, the 4-k quad and
// the group), M from 1 (decode) past the 4-row block, extreme values (all q = -8, all 7,
// mixed with activations at +-127), with bias and activations within a few ulp; the
// packing's round trip and scale choice, the layout checks, and refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dispatch/gemm_dispatch.h"
#include "focal/gemm.h"
#include "q4gemm/q4gemm_kernels.h"
#include "support/aligned_buffer.h"
#include "support/emulation.h"
#include "support/random_values.h"
#if !defined(FOCAL_TESTS_BARE_METAL)
#include "thread_pool.h"
#endif

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

using kernels::Q4GemmKernelTable;

std::vector<const Q4GemmKernelTable*> usable_variants() {
  std::vector<const Q4GemmKernelTable*> out;
  for (const Q4GemmKernelTable* const* t = kernels::q4gemm_variants(); *t != nullptr; ++t) {
    if (kernels::q4gemm_variant_usable(**t)) out.push_back(*t);
  }
  return out;
}

// A packed int4 problem with its buffers.
struct Case {
  size_t m, n, k, group;
  std::vector<float> x, bias;
  AlignedBuffer packed, work;
  std::vector<float> y_ref, y;

  Case(size_t m_, size_t n_, size_t k_, size_t group_)
      : m(m_), n(n_), k(k_), group(group_), packed(packed_dense_weights_int4_bytes(n_, k_, group_)),
        work(kernels::q4_workspace_bytes(m_, k_, group_)), y_ref(m_ * n_), y(m_ * n_) {}

  GemmParams params(float* out, Activation act = Activation::kNone) {
    GemmParams p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.weight_type = DType::kI4;
    p.int4_group = group;
    p.activation = act;
    p.x = x.data();
    p.packed_weights = packed.data();
    p.packed_weights_bytes = packed.size();
    p.bias = bias.empty() ? nullptr : bias.data();
    p.y = out;
    p.workspace = work.data();
    p.workspace_bytes = work.size();
    return p;
  }
};

// Weights from q chosen directly (any of -8..7) with random positive scales.
void pack_extreme(Case* c, int8_t qw, bool alternate) {
  std::vector<int8_t> q(c->n * c->k);
  for (size_t i = 0; i < q.size(); ++i) q[i] = alternate && i % 2 == 1 ? int8_t(7) : qw;
  const size_t groups = kernels::q4_groups(c->k, c->group);
  std::vector<float> scales = testing::random_values(c->n * groups, 17, 0.01f, 2.0f);
  kernels::q4gemm_pack_quantized(q.data(), scales.data(), c->n, c->k, c->group, c->packed.data());
}

void check_variant_bitwise(const Q4GemmKernelTable& v, Case* c) {
  REQUIRE(gemm_reference(c->params(c->y_ref.data())).ok());
  REQUIRE(gemm_with_kernels(c->params(c->y.data()), kernels::kBestKernels, nullptr, nullptr, &v).ok());
  for (size_t i = 0; i < c->y.size(); ++i) {
    if (std::memcmp(&c->y[i], &c->y_ref[i], 4) != 0) {
      FAIL_CHECK("y[" << i / c->n << "][" << i % c->n << "] = " << c->y[i] << ", reference " << c->y_ref[i]);
      return;
    }
  }
}

}  // namespace

TEST_CASE("int4 GEMM: every variant equals the reference bit for bit on ragged shapes") {
  const size_t shapes[][3] = {{1, 1, 1},   {1, 31, 33},  {1, 33, 100}, {1, 64, 128}, {2, 95, 131},
                              {3, 32, 255}, {4, 70, 257}, {5, 40, 64},  {9, 65, 200}, {1, 100, 768}};
  for (const Q4GemmKernelTable* v : usable_variants()) {
    for (size_t group : {size_t(32), size_t(64), size_t(128)}) {
      for (const auto& s : shapes) {
        CAPTURE(v->isa);
        CAPTURE(group);
        CAPTURE(s[0]);
        CAPTURE(s[1]);
        CAPTURE(s[2]);
        Case c(s[0], s[1], s[2], group);
        c.x = testing::random_values(c.m * c.k, 3, -2.0f, 2.0f);
        const std::vector<float> w = testing::random_values(c.n * c.k, 5, -1.0f, 1.0f);
        REQUIRE(pack_dense_weights_int4(w.data(), c.n, c.k, group, c.packed.data(), c.packed.size()).ok());
        check_variant_bitwise(*v, &c);
      }
    }
  }
}

#if !defined(FOCAL_TESTS_BARE_METAL)  // firmware has no threads
// A GEMV is cut into one contiguous range of panels per worker (10 panels: 5 + 5, and
// 3 + 3 + 4 at 3 workers), a larger M into fixed blocks: every cut gives the same bits.
TEST_CASE("int4 GEMM: bitwise identical for 1, 2 and 3 workers" *
          doctest::skip(focal::testing::kUnderEmulation)) {  // qemu-user cannot start threads
  for (size_t m : {size_t(1), size_t(3), size_t(40)}) {
    CAPTURE(m);
    Case c(m, 300, 320, 32);
    c.x = testing::random_values(c.m * c.k, 3, -2.0f, 2.0f);
    c.bias = testing::random_values(c.n, 4, -1.0f, 1.0f);
    const std::vector<float> w = testing::random_values(c.n * c.k, 5, -1.0f, 1.0f);
    REQUIRE(pack_dense_weights_int4(w.data(), c.n, c.k, c.group, c.packed.data(), c.packed.size()).ok());
    REQUIRE(gemm(c.params(c.y_ref.data(), Activation::kGeluTanh)).ok());
    for (int workers : {2, 3}) {
      CAPTURE(workers);
      ThreadPool pool(workers);
      std::fill(c.y.begin(), c.y.end(), NAN);
      REQUIRE(gemm(c.params(c.y.data(), Activation::kGeluTanh), &pool).ok());
      CHECK(std::memcmp(c.y.data(), c.y_ref.data(), c.y.size() * sizeof(float)) == 0);
    }
  }
}
#endif

TEST_CASE("int4 GEMM: extreme nibbles and activations give the reference's exact sums") {
  for (const Q4GemmKernelTable* v : usable_variants()) {
    for (size_t group : {size_t(32), size_t(128)}) {
      for (int variant = 0; variant < 3; ++variant) {
        CAPTURE(v->isa);
        CAPTURE(group);
        CAPTURE(variant);
        Case c(4, 48, 260, group);
        pack_extreme(&c, variant == 1 ? int8_t(7) : int8_t(-8), variant == 2);
        c.x.assign(c.m * c.k, 0.0f);
        for (size_t i = 0; i < c.x.size(); ++i) c.x[i] = variant == 2 && i % 3 == 0 ? -1.0f : 1.0f;
        check_variant_bitwise(*v, &c);
        // All activations at +-127 after quantization and q = -8: |group sum| = 128 * 8 * 127.
        if (variant == 0) CHECK(std::fabs(c.y_ref[0]) > 0.0f);
      }
    }
  }
}

TEST_CASE("int4 GEMM: the result is the f32 product of the stored weights, within the int8 row error") {
  Case c(2, 50, 300, 64);
  c.x = testing::random_values(c.m * c.k, 7, -1.0f, 1.0f);
  const std::vector<float> w = testing::random_values(c.n * c.k, 9, -0.5f, 0.5f);
  REQUIRE(pack_dense_weights_int4(w.data(), c.n, c.k, c.group, c.packed.data(), c.packed.size()).ok());
  REQUIRE(gemm(c.params(c.y.data())).ok());
  kernels::Q4GemmProblem p = describe_q4gemm(c.params(c.y.data()));
  for (size_t r = 0; r < c.m; ++r) {
    double amax = 0.0;
    for (size_t i = 0; i < c.k; ++i) amax = std::max(amax, std::fabs(double(c.x[r * c.k + i])));
    for (size_t j = 0; j < c.n; ++j) {
      double exact = 0.0, bound = 0.0;
      for (size_t i = 0; i < c.k; ++i) {
        const double wq = double(kernels::q4_stored_q(p, j, i)) * kernels::q4_stored_scale(p, j, i / c.group);
        exact += double(c.x[r * c.k + i]) * wq;
        bound += std::fabs(wq) * amax / 254.0;  // each x off by at most half an int8 step
      }
      CHECK(std::fabs(double(c.y[r * c.n + j]) - exact) <= bound * 1.01 + 1e-6);
    }
  }
}

TEST_CASE("int4 GEMM: bias and activations match the reference within a few ulp") {
  for (const Q4GemmKernelTable* v : usable_variants()) {
    for (Activation act : {Activation::kRelu, Activation::kGeluTanh, Activation::kSilu}) {
      CAPTURE(v->isa);
      Case c(3, 45, 96, 32);
      c.x = testing::random_values(c.m * c.k, 11, -1.0f, 1.0f);
      c.bias = testing::random_values(c.n, 12, -1.0f, 1.0f);
      const std::vector<float> w = testing::random_values(c.n * c.k, 13, -1.0f, 1.0f);
      REQUIRE(pack_dense_weights_int4(w.data(), c.n, c.k, 32, c.packed.data(), c.packed.size()).ok());
      REQUIRE(gemm_reference(c.params(c.y_ref.data(), act)).ok());
      REQUIRE(gemm_with_kernels(c.params(c.y.data(), act), kernels::kBestKernels, nullptr, nullptr, v).ok());
      for (size_t i = 0; i < c.y.size(); ++i) {
        CHECK(std::fabs(c.y[i] - c.y_ref[i]) <= 1e-5f * (1.0f + std::fabs(c.y_ref[i])));
      }
    }
  }
}

TEST_CASE("int4 packing: stored q and scales round-trip, and the scale search never loses to amax / 7") {
  const size_t n = 40, k = 100, group = 32;
  const std::vector<float> w = testing::random_values(n * k, 21, -1.0f, 1.0f);
  AlignedBuffer searched(kernels::q4_packed_bytes(n, k, group)), amax(kernels::q4_packed_bytes(n, k, group));
  kernels::PackFailure failure;
  REQUIRE(kernels::q4gemm_pack(w.data(), n, k, group, searched.data(), &failure));
  REQUIRE(kernels::q4gemm_pack_amax(w.data(), n, k, group, amax.data(), &failure));
  const char* why = "";
  CHECK(kernels::q4gemm_packed_consistent(searched.data(), n, k, group, &why));
  Case c(1, n, k, group);
  c.x.assign(k, 0.0f);
  kernels::Q4GemmProblem p = describe_q4gemm(c.params(c.y.data()));
  double error_search = 0.0, error_amax = 0.0;
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < k; ++i) {
      p.weights = searched.data();
      const double a = double(kernels::q4_stored_q(p, j, i)) * kernels::q4_stored_scale(p, j, i / group);
      p.weights = amax.data();
      const int32_t q_amax = kernels::q4_stored_q(p, j, i);
      CHECK(q_amax >= -7);  // amax / 7 clips nothing and never reaches -8
      const double b = double(q_amax) * kernels::q4_stored_scale(p, j, i / group);
      error_search += (a - w[j * k + i]) * (a - w[j * k + i]);
      error_amax += (b - w[j * k + i]) * (b - w[j * k + i]);
    }
  }
  MESSAGE("int4 RMS error, scale search: " << std::sqrt(error_search / (n * k))
                                           << ", amax / 7: " << std::sqrt(error_amax / (n * k)));
  CHECK(error_search <= error_amax);
  CHECK(error_search > 0.0);
}

TEST_CASE("int4 packing: the layout check refuses padding, scales and sizes that are wrong") {
  const size_t n = 33, k = 70, group = 64;
  const std::vector<float> w = testing::random_values(n * k, 23, -1.0f, 1.0f);
  AlignedBuffer packed(kernels::q4_packed_bytes(n, k, group));
  kernels::PackFailure failure;
  REQUIRE(kernels::q4gemm_pack(w.data(), n, k, group, packed.data(), &failure));
  const char* why = "";
  REQUIRE(kernels::q4gemm_packed_consistent(packed.data(), n, k, group, &why));
  // Output 33 (past N) is in panel 1; its first nibble is the low nibble of quad byte 4.
  const size_t panel1 = kernels::q4_panel_bytes(k, group);
  packed.data()[panel1 + 4] ^= 0x01;
  CHECK_FALSE(kernels::q4gemm_packed_consistent(packed.data(), n, k, group, &why));
  packed.data()[panel1 + 4] ^= 0x01;
  // K = 70 ends inside the last quad (k 68, 69 real, 70, 71 padding), the second of group
  // 1 (the ragged tail); byte 2 of that quad is k = 70, its high nibble output 16.
  const size_t last_quad = kernels::q4_group_stride(group) + 64;
  packed.data()[last_quad + 2] ^= 0x10;
  CHECK_FALSE(kernels::q4gemm_packed_consistent(packed.data(), n, k, group, &why));
  packed.data()[last_quad + 2] ^= 0x10;
  packed.data()[last_quad + 1] ^= 0x10;  // k = 69 is real: any q is valid there
  CHECK(kernels::q4gemm_packed_consistent(packed.data(), n, k, group, &why));
  // Group 0's first scale set to an f16 infinity (0x7c00).
  const size_t scale0 = group / 4 * 64;
  packed.data()[scale0] = 0x00;
  packed.data()[scale0 + 1] = 0x7c;
  CHECK_FALSE(kernels::q4gemm_packed_consistent(packed.data(), n, k, group, &why));
  CHECK(packed_dense_weights_int4_bytes(n, k, 48) == 0);
  CHECK(packed_dense_weights_int4_bytes(n, size_t(1) << 17, 32) == 0);
}

TEST_CASE("int4 GEMM: refusals name the problem") {
  Case c(1, 8, 64, 32);
  c.x.assign(64, 1.0f);
  std::vector<float> w(8 * 64, 0.5f);
  w[3 * 64 + 5] = NAN;
  const Result<size_t> refused = pack_dense_weights_int4(w.data(), 8, 64, 32, c.packed.data(), c.packed.size());
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()).find("w[3][5]") != std::string::npos);
  w[3 * 64 + 5] = 0.5f;
  REQUIRE(pack_dense_weights_int4(w.data(), 8, 64, 32, c.packed.data(), c.packed.size()).ok());
  GemmParams p = c.params(c.y.data());
  p.int4_group = 48;
  CHECK(std::string(gemm(p).message()).find("int4_group") != std::string::npos);
  p = c.params(c.y.data());
  p.workspace_bytes = 4;
  CHECK(std::string(gemm(p).message()).find("workspace") != std::string::npos);
  p = c.params(c.y.data());
  p.packed_weights_bytes -= 64;
  CHECK(std::string(gemm(p).message()).find("packed_weights_bytes") != std::string::npos);
  CHECK(gemm(c.params(c.y.data())).ok());
  CHECK(c.y[0] == doctest::Approx(32.0).epsilon(0.01));  // 64 x 1 x 0.5
}

TEST_CASE("int4 GEMM: the best variant is usable and named") {
  const char* isa = gemm_int4_isa();
  CHECK(std::strlen(isa) > 0);
  for (const Q4GemmKernelTable* v : usable_variants()) MESSAGE("int4 variant usable here: " << std::string(v->isa));
  CHECK(kernels::q4gemm_variant_usable(kernels::best_q4gemm_kernels()));
}

// Under qemu at each feature level (tests/CMakeLists.txt): where the int8 variant the CPU
// calls for has an int4 twin (all but i8mm), that twin is the best int4 variant, so the
// NEON kernels without dotprod are the ones chosen on Cortex-A53 and armv7.
TEST_CASE("int4 GEMM: the best variant is the int8 GEMM's where it has an int4 twin") {
  const char* expected = std::getenv("FOCAL_EXPECT_INT8_ISA");
  if (expected == nullptr) return;  // set where the build's emulator fixes the CPU
  bool twin = false;
  for (const Q4GemmKernelTable* const* t = kernels::q4gemm_variants(); *t != nullptr; ++t) {
    twin = twin || std::strcmp((*t)->isa, expected) == 0;
  }
  if (twin) CHECK(std::string(kernels::best_q4gemm_kernels().isa) == expected);
}
