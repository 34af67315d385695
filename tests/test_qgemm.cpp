// The int8-activation GEMM (W8A8) on every variant this CPU can run, against the scalar
// reference twin: the int32 sums bit for bit (ragged shapes across the tile, panel and
// 8-k group edges, random values, all -128, all 127, mixed extremes), the quantization
// bit for bit, the f32 outputs of the whole GEMM (bias, activations) within a few ulp of
// the reference, bitwise equality across workers, the layout checks, and refusals.
// Under qemu the aarch64 build runs once per feature level (tests/CMakeLists.txt sets
// QEMU_CPU and FOCAL_EXPECT_INT8_ISA; the best variant must be the one named).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dispatch/gemm_dispatch.h"
#include "focal/gemm.h"
#include "qgemm/qgemm_kernels.h"
#include "support/aligned_buffer.h"
#include "support/emulation.h"
#include "support/random_values.h"
#if !defined(FOCAL_TESTS_BARE_METAL)
#include "thread_pool.h"
#endif

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

using kernels::QGemmKernelTable;

std::vector<const QGemmKernelTable*> usable_variants() {
  std::vector<const QGemmKernelTable*> out;
  for (const QGemmKernelTable* const* t = kernels::qgemm_variants(); *t != nullptr; ++t) {
    if (kernels::qgemm_variant_usable(**t)) out.push_back(*t);
  }
  return out;
}

// How the int8 values of a case are drawn.
enum class Fill { kRandom, kAllMin, kAllMax, kMinTimesMax, kAlternating };

int8_t draw(Fill fill, uint32_t* state, size_t index, bool weights) {
  switch (fill) {
    case Fill::kRandom:
      *state = *state * 1664525u + 1013904223u;
      return static_cast<int8_t>(*state >> 24);
    case Fill::kAllMin:
      return -128;
    case Fill::kAllMax:
      return 127;
    case Fill::kMinTimesMax:
      return weights ? 127 : -128;
    case Fill::kAlternating:
      return index % 2 == 0 ? -128 : 127;
  }
  return 0;
}

// One integer case: q_x [m][k] and q_w [n][k] given directly (any int8, -128 included),
// the variant's sums (offset removed as the driver does) against the reference's.
void check_sums(const QGemmKernelTable& variant, size_t m, size_t n, size_t k, Fill fill) {
  CAPTURE(variant.isa);
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(static_cast<int>(fill));
  uint32_t state = static_cast<uint32_t>(m * 7919 + n * 31 + k);
  std::vector<int8_t> qw(n * k), qx(m * k);
  for (size_t i = 0; i < qw.size(); ++i) qw[i] = draw(fill, &state, i, true);
  for (size_t i = 0; i < qx.size(); ++i) qx[i] = draw(fill, &state, i + 1, false);
  std::vector<float> scales(n, 1.0f);
  AlignedBuffer packed(kernels::qgemm_packed_bytes(n, k));
  kernels::qgemm_pack_quantized(qw.data(), n, k, scales.data(), packed.data());
  const char* why = "";
  REQUIRE(kernels::qgemm_packed_consistent(packed.data(), n, k, &why));

  const size_t stride = kernels::qgemm_row_bytes(k), panels = (n + 31) / 32;
  AlignedBuffer a_ref(m * stride), a_variant(m * stride);
  for (size_t r = 0; r < m; ++r) {
    for (size_t i = 0; i < stride; ++i) {
      const int q = i < k ? qx[r * k + i] : 0;
      a_ref.data()[r * stride + i] = static_cast<uint8_t>(q);
      a_variant.data()[r * stride + i] = static_cast<uint8_t>(q + variant.activation_offset);
    }
  }
  kernels::QGemmProblem p{};
  p.gemm.m = m;
  p.gemm.n = n;
  p.gemm.k = k;
  p.gemm.panels = panels;
  p.groups = kernels::qgemm_groups(k);
  p.weights = reinterpret_cast<const int8_t*>(packed.data());
  p.column_sums =
      reinterpret_cast<const int32_t*>(packed.data() + kernels::qgemm_sums_offset(panels, k));
  p.a = a_ref.data();
  p.a_stride = stride;
  std::vector<int32_t> expected(m * n);
  kernels::qgemm_sums_reference(p, expected.data());

  std::vector<int32_t> tile(kernels::kQGemmMaxTileRows * 32);
  size_t mismatches = 0;
  for (size_t panel = 0; panel < panels; ++panel) {
    for (size_t r0 = 0; r0 < m; r0 += variant.tile_rows) {
      const size_t rows = m - r0 < variant.tile_rows ? m - r0 : variant.tile_rows;
      variant.tile(a_variant.data() + r0 * stride, stride, rows,
                   p.weights + panel * p.groups * kernels::kQGemmPanelGroupBytes, p.groups,
                   tile.data());
      for (size_t r = 0; r < rows; ++r) {
        for (size_t j = 0; j < 32 && panel * 32 + j < n; ++j) {
          const size_t col = panel * 32 + j;
          const int32_t got =
              tile[r * 32 + j] - int32_t(variant.activation_offset) * p.column_sums[col];
          if (got != expected[(r0 + r) * n + col] && mismatches++ < 4) {
            FAIL_CHECK("sum [" << r0 + r << "][" << col << "] is " << got << ", expected "
                               << expected[(r0 + r) * n + col]);
          }
        }
      }
    }
  }
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("int8 GEMM: every variant's int32 sums equal the reference's bit for bit") {
  const std::vector<const QGemmKernelTable*> variants = usable_variants();
  REQUIRE(!variants.empty());
  const size_t ms[] = {1, 2, 3, 5, 7, 9, 13, 17};
  const size_t ns[] = {1, 31, 33, 70};
  const size_t ks[] = {1, 7, 8, 9, 63, 200};
  for (const QGemmKernelTable* variant : variants) {
    for (size_t m : ms) {
      for (size_t n : ns) {
        for (size_t k : ks) check_sums(*variant, m, n, k, Fill::kRandom);
      }
    }
    for (Fill fill : {Fill::kAllMin, Fill::kAllMax, Fill::kMinTimesMax, Fill::kAlternating}) {
      check_sums(*variant, 11, 40, 300, fill);
      check_sums(*variant, 3, 64, 1024, fill);
    }
  }
}

TEST_CASE("int8 GEMM: every tile height of every variant gives the reference's sums") {
  // The sweep above reaches only some partial tiles of each height (not 4 rows of a
  // 6-row tile, for one): every row count up to a full tile and one past it, here.
  for (const QGemmKernelTable* variant : usable_variants()) {
    for (size_t m = 1; m <= variant->tile_rows + 1; ++m) {
      check_sums(*variant, m, 40, 72, Fill::kRandom);
      check_sums(*variant, m, 33, 17, Fill::kAlternating);
    }
  }
}

TEST_CASE("int8 GEMM: tiles of 16 rows with K a multiple of 64 give the reference's sums") {
  // The shapes the amx variant computes on its tiles (16 rows, 64 k a step, K in chunks
  // of 1024) and not on VNNI's: one block, the chunk edge, a second chunk that is partial.
  for (const QGemmKernelTable* variant : usable_variants()) {
    for (size_t k : {64, 768, 1024, 1088}) {
      check_sums(*variant, 16, 40, k, Fill::kRandom);
      check_sums(*variant, 16, 32, k, Fill::kMinTimesMax);
    }
    check_sums(*variant, 16, 33, 2048, Fill::kAllMin);
  }
}

TEST_CASE("int8 GEMM: the largest K keeps exact int32 sums on every variant") {
#if defined(FOCAL_TESTS_BARE_METAL)
  // The largest K's weights alone take 4 MiB here (q and one packed panel, 2 MiB each):
  // all of the Cortex-M boards' RAM.
  constexpr bool kSmallK = true;
#else
  constexpr bool kSmallK = focal::testing::kUnderEmulation;
#endif
  for (const QGemmKernelTable* variant : usable_variants()) {
    const size_t k = kSmallK ? 4096 : kMaxInt8GemmK;
    check_sums(*variant, 2, 32, k, Fill::kAllMin);
    check_sums(*variant, 2, 32, k, Fill::kMinTimesMax);
    check_sums(*variant, 16, 32, k, Fill::kAllMin);  // a full tile (amx: its tiles)
  }
}

#if defined(FOCAL_TESTS_BARE_METAL) && defined(__ARM_FEATURE_MVE)
TEST_CASE("int8 GEMM: a Helium core runs the mve variant") {
  CHECK(std::string(gemm_int8_isa()) == "mve");
}
#endif

#if !defined(FOCAL_TESTS_BARE_METAL)
TEST_CASE("int8 GEMM: the best variant is the one this CPU's features call for") {
  const char* expected = std::getenv("FOCAL_EXPECT_INT8_ISA");
  if (expected == nullptr) return;  // set where the build's emulator fixes the CPU
  CHECK(std::string(gemm_int8_isa()) == expected);
}
#endif

namespace {

struct Int8Case {
  size_t m, n, k;
  Activation activation;
  bool bias;
  float x_scale;
};

// x, weights, bias for a case; y of the public gemm() (through `variant`) and of
// gemm_reference().
struct Int8Run {
  std::vector<float> x, w, bias, y, y_ref;
  AlignedBuffer packed;
  AlignedBuffer workspace;
  GemmParams params;

  explicit Int8Run(const Int8Case& c)
      : x(focal::testing::random_values(c.m * c.k, uint32_t(11 + c.m), -c.x_scale, c.x_scale)),
        w(focal::testing::random_values(c.n * c.k, uint32_t(23 + c.n), -0.2f, 0.2f)),
        bias(focal::testing::random_values(c.n, 5u)),
        y(c.m * c.n),
        y_ref(c.m * c.n),
        packed(packed_dense_weights_int8_dot_bytes(c.n, c.k)),
        workspace(kernels::qgemm_workspace_bytes(c.m, c.k)) {
    REQUIRE(pack_dense_weights_int8_dot(w.data(), c.n, c.k, packed.data(), packed.size()).ok());
    params.m = c.m;
    params.n = c.n;
    params.k = c.k;
    params.weight_type = DType::kI8;
    params.activation = c.activation;
    params.x = x.data();
    params.packed_weights = packed.data();
    params.packed_weights_bytes = packed.size();
    params.bias = c.bias ? bias.data() : nullptr;
    params.int8_activations = true;
    params.workspace = workspace.data();
    params.workspace_bytes = workspace.size();
  }
};

}  // namespace

TEST_CASE("int8 GEMM: every variant's outputs match the reference twin") {
  const Int8Case cases[] = {
      {1, 70, 200, Activation::kNone, true, 1.0f},      {3, 33, 9, Activation::kRelu, false, 3.0f},
      {13, 96, 65, Activation::kGeluErf, true, 0.5f},   {40, 40, 768, Activation::kSilu, true, 2.0f},
      {5, 1, 1, Activation::kTanh, true, 1e-3f},        {17, 64, 31, Activation::kSigmoid, false, 100.0f},
      // Task splits of the amx variant: 32- and 16-row tiles, rows left to VNNI's tile,
      // two K chunks.
      {150, 70, 1088, Activation::kGeluErf, true, 1.0f}, {48, 64, 128, Activation::kNone, false, 4.0f},
  };
  for (const Int8Case& c : cases) {
    Int8Run run(c);
    run.params.y = run.y_ref.data();
    REQUIRE(gemm_reference(run.params).ok());
    for (const QGemmKernelTable* variant : usable_variants()) {
      CAPTURE(variant->isa);
      CAPTURE(c.m);
      CAPTURE(c.n);
      CAPTURE(c.k);
      std::fill(run.y.begin(), run.y.end(), -1.0f);
      run.params.y = run.y.data();
      REQUIRE(gemm_with_kernels(run.params, kernels::kBestKernels, nullptr, variant).ok());
      size_t bad = 0;
      for (size_t i = 0; i < run.y.size(); ++i) {
        // Same quantization and exact sums: only the epilogue's activation may differ
        // (the kernel sets' erf/exp/tanh are within a few ulp of the scalar twin's).
        const float tol = 4e-6f * std::fabs(run.y_ref[i]) + 1e-6f;
        if (!(std::fabs(run.y[i] - run.y_ref[i]) <= tol) && bad++ < 4) {
          FAIL_CHECK("y[" << i << "] = " << run.y[i] << ", reference " << run.y_ref[i]);
        }
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("int8 GEMM: quantization is the reference's, and special rows are handled") {
  // A zero row gives the bias; a row with an infinity or NaN gives NaN outputs.
  Int8Run run({4, 40, 20, Activation::kNone, true, 1.0f});
  for (size_t i = 0; i < 20; ++i) run.x[0 * 20 + i] = 0.0f;
  run.x[1 * 20 + 3] = INFINITY;
  run.x[2 * 20 + 5] = NAN;
  run.params.y = run.y.data();
  REQUIRE(gemm(run.params).ok());
  for (size_t j = 0; j < 40; ++j) {
    CHECK(run.y[0 * 40 + j] == run.bias[j]);
    CHECK(std::isnan(run.y[1 * 40 + j]));
    CHECK(std::isnan(run.y[2 * 40 + j]));
    CHECK(std::isfinite(run.y[3 * 40 + j]));
  }
  // Rows quantized by every variant are the reference's bytes (+ its offset).
  std::vector<uint8_t> expected(kernels::qgemm_row_bytes(20));
  for (const QGemmKernelTable* variant : usable_variants()) {
    CAPTURE(variant->isa);
    kernels::QGemmProblem p = describe_qgemm(run.params);
    variant->quantize(p, 0, 4);
    for (size_t r = 0; r < 4; ++r) {
      const float scale = kernels::quantize_row_reference(run.x.data() + r * 20, 20,
                                                          variant->activation_offset, expected.data());
      CHECK(std::memcmp(expected.data(), p.a + r * p.a_stride, expected.size()) == 0);
      if (std::isnan(scale)) {
        CHECK(std::isnan(p.a_scales[r]));
      } else {
        CHECK(p.a_scales[r] == scale);
      }
    }
  }
}

TEST_CASE("int8 GEMM: every variant rounds quantization ties to even, in full steps and tails") {
  // amax 127 makes the factor exactly 1, so each x is its own unrounded q; k = 19 puts
  // ties both in the SIMD variants' 8-wide steps and in their 3-element tail.
  const float x[19] = {127.0f, 0.5f,  1.5f,  2.5f,   -0.5f, -1.5f, -2.5f, 126.5f, -126.5f, 3.5f,
                       -3.5f,  0.25f, -0.75f, 10.5f, 11.5f, -127.0f, 4.5f, 5.5f,  -5.5f};
  const int expected_q[19] = {127, 0, 2, 2, 0, -2, -2, 126, -126, 4, -4, 0, -1, 10, 12, -127, 4, 6, -6};
  Int8Run run({1, 8, 19, Activation::kNone, false, 1.0f});
  std::copy(x, x + 19, run.x.begin());
  for (const QGemmKernelTable* variant : usable_variants()) {
    CAPTURE(variant->isa);
    kernels::QGemmProblem p = describe_qgemm(run.params);
    variant->quantize(p, 0, 1);
    CHECK(p.a_scales[0] == 1.0f);
    for (size_t i = 0; i < p.a_stride; ++i) {
      CAPTURE(i);
      const int q = i < 19 ? expected_q[i] : 0;
      CHECK(int(p.a[i]) == uint8_t(q + variant->activation_offset));
    }
  }
}

#if !defined(FOCAL_TESTS_BARE_METAL)
TEST_CASE("int8 GEMM: results are bitwise identical for 1, 2 and 3 workers" *
          doctest::skip(focal::testing::kUnderEmulation)) {  // qemu-user cannot start threads
  // 77 rows: fixed blocks of rows x panels; 1 and 3 (GEMV): one range of panels per worker.
  for (size_t m : {size_t(77), size_t(1), size_t(3)}) {
    CAPTURE(m);
    Int8Run run({m, 300, 300, Activation::kGeluTanh, true, 1.0f});
    run.params.y = run.y_ref.data();
    REQUIRE(gemm(run.params).ok());
    for (int workers : {2, 3}) {
      CAPTURE(workers);
      ThreadPool pool(workers);
      std::fill(run.y.begin(), run.y.end(), 0.0f);
      run.params.y = run.y.data();
      REQUIRE(gemm(run.params, &pool).ok());
      CHECK(std::memcmp(run.y.data(), run.y_ref.data(), run.y.size() * 4) == 0);
    }
  }
}
#endif

TEST_CASE("int8 GEMM: refusals name the problem") {
  Int8Run run({2, 8, 16, Activation::kNone, false, 1.0f});
  run.params.y = run.y.data();
  GemmParams p = run.params;
  p.workspace = nullptr;
  CHECK(std::string(gemm(p).message()).find("workspace") != std::string::npos);
  p = run.params;
  p.workspace_bytes = 1;
  CHECK(!gemm(p).ok());
  p = run.params;
  p.weight_type = DType::kF16;
  CHECK(std::string(gemm(p).message()).find("int8 weights") != std::string::npos);
  p = run.params;
  p.k = kMaxInt8GemmK + 1;
  CHECK(!gemm(p).ok());
  CHECK(packed_dense_weights_int8_dot_bytes(8, kMaxInt8GemmK + 1) == 0);
  // A packed matrix with a wrong column sum or non-zero padding is not consistent.
  const char* why = "";
  CHECK(kernels::qgemm_packed_consistent(run.packed.data(), 8, 16, &why));
  run.packed.data()[kernels::qgemm_sums_offset(1, 16)] ^= 1;
  CHECK(!kernels::qgemm_packed_consistent(run.packed.data(), 8, 16, &why));
  CHECK(std::string(why).find("column sum") != std::string::npos);
  run.packed.data()[kernels::qgemm_sums_offset(1, 16)] ^= 1;
  run.packed.data()[9 * 8] = 1;  // output 9 of a matrix with 8
  CHECK(!kernels::qgemm_packed_consistent(run.packed.data(), 8, 16, &why));
}
