// Google Benchmark cases for focal::gemm (dense layers, y = x . W^T) on one thread, with
// OpenBLAS timed in the same process on the same shapes:
//
//   gemm/focal/f32/m{1,32,128,512}_k768_n{768,3072}
//   gemm/openblas/f32/m{1,32,128,512}_k768_n{768,3072}   cblas_sgemm (cblas_sgemv at m = 1)
//   gemm/focal/{f16,bf16,i8}/m1_k768_n{768,3072}         decode: quantized weights
//   gemm/{focal,openblas}/<type>/m1_k768_n{768,3072}/dram  decode, weights from DRAM
//   gemm/focal/w8a8/m{1,128,512}_k{768,3072}_n{768,3072}  int8 activations x int8 weights
//   gemm/focal/f32/m{1,128,512}_k3072_n768              their f32 twins at k = 3072
//
// (Google Benchmark appends "/real_time": every case is timed in wall time.) No bias, no
// activation, so both sides do the same work. Counters: GFLOP/s (2 m n k per call);
// peak_fraction = GFLOP/s / the single-core FMA peak measured at start-up; at m = 1,
// GB/s of weights read. The weights stay in the caches between calls (9.4 MB of f32 at
// n = 3072 fits the 32 MiB L3), as in a model small enough to live in the L3; the
// "/dram" cases instead rotate through copies of the weights filling 128 MiB (4x the
// L3), so every call streams them from memory, as a decode step of a model larger than
// the L3 does. The w8a8 cases (GemmParams::int8_activations: each row quantized per call,
// int32 sums, the f32 epilogue) count GOP/s (2 m n k integer operations per call) and
// int8_peak_fraction against the single-core int8 dot-product peak measured at start-up
// (vpdpbusd on AVX-512 VNNI, sdot on AArch64; none elsewhere). After the runs tables
// compare focal with OpenBLAS, the quantized decode with f32, and w8a8 with f32.
//
// Run OpenBLAS with its own choice of kernels: this environment exports
// OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which force slower (Haswell) kernels, so run
//
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/host/bin/focal_bench_gemm
//
// The context prints openblas_corename (expect SkylakeX or Cooperlake on AVX-512 CPUs).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "focal/gemm.h"
#include "bench_support.h"
#include "machine_peak.h"

#if defined(FOCAL_BENCH_OPENBLAS)
#include <cblas.h>
#endif

namespace {

using focal_bench::AlignedBuffer;
using focal_bench::fill_uniform;
using focal_bench::format_double;

// 64-byte aligned, every page touched at allocation (never inside a timed loop).

enum class Runner { kFocal, kOpenBlas };

struct Case {
  std::string name;
  Runner runner = Runner::kFocal;
  focal::DType type = focal::DType::kF32;
  size_t m = 1, k = 768, n = 768;
  bool dram = false;  // rotate through copies of the weights filling kDramBytes
  bool int8_activations = false;  // w8a8: type is kI8, packed in the int8-dot layout

  double flop() const { return 2.0 * double(m) * double(n) * double(k); }
  double weight_bytes() const { return double(n) * double(k) * double(focal::dtype_size(type)); }
};

constexpr size_t kDramBytes = size_t(128) << 20;

struct Problem {
  AlignedBuffer x, y, workspace;  // workspace: the quantized rows of w8a8 cases
  std::vector<AlignedBuffer> w, packed;  // one copy, or enough to fill kDramBytes
  size_t next = 0;                       // the copy the next call uses
  focal::GemmParams params;
};

std::unique_ptr<Problem> make_problem(const Case& c) {
  auto p = std::make_unique<Problem>();
  p->x = AlignedBuffer(c.m * c.k * sizeof(float));
  p->y = AlignedBuffer(c.m * c.n * sizeof(float));
  fill_uniform(p->x.as<float>(), c.m * c.k, 1);
  AlignedBuffer w(c.n * c.k * sizeof(float));
  fill_uniform(w.as<float>(), c.n * c.k, 2);
  if (c.runner == Runner::kOpenBlas) {
    const size_t copies = c.dram ? (kDramBytes + w.bytes() - 1) / w.bytes() : 1;
    for (size_t i = 0; i < copies; ++i) {
      p->w.emplace_back(w.bytes());
      std::memcpy(p->w.back().as<void>(), w.as<void>(), w.bytes());
    }
    return p;
  }
  const size_t bytes = c.int8_activations ? focal::packed_dense_weights_int8_dot_bytes(c.n, c.k)
                                          : focal::packed_dense_weights_bytes(c.type, c.n, c.k);
  AlignedBuffer packed(bytes);
  const focal::Result<size_t> written =
      c.int8_activations
          ? focal::pack_dense_weights_int8_dot(w.as<float>(), c.n, c.k, packed.as<void>(), bytes)
          : focal::pack_dense_weights(c.type, w.as<float>(), c.n, c.k, packed.as<void>(), bytes);
  if (!written.ok()) {
    std::fprintf(stderr, "%s\n", written.status().message());
    std::abort();
  }
  const size_t copies = c.dram ? (kDramBytes + bytes - 1) / bytes : 1;
  for (size_t i = 0; i < copies; ++i) {
    p->packed.emplace_back(bytes);
    std::memcpy(p->packed.back().as<void>(), packed.as<void>(), bytes);
  }
  focal::GemmParams& g = p->params;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.weight_type = c.type;
  g.x = p->x.as<float>();
  g.packed_weights = p->packed[0].as<void>();
  g.packed_weights_bytes = bytes;
  g.y = p->y.as<float>();
  if (c.int8_activations) {
    g.int8_activations = true;
    g.workspace_bytes = focal::gemm_workspace_bytes(g);
    p->workspace = AlignedBuffer(g.workspace_bytes);
    g.workspace = p->workspace.as<void>();
  }
  return p;
}

Problem& problem_for(const Case& c) { return focal_bench::current_problem<Problem>(c, make_problem); }

bool run_once(const Case& c, Problem& p, std::string* error) {
  const size_t copy = p.next;
  p.next =
      p.next + 1 < (c.runner == Runner::kFocal ? p.packed.size() : p.w.size()) ? p.next + 1 : 0;
  if (c.runner == Runner::kFocal) {
    p.params.packed_weights = p.packed[copy].as<void>();
    const focal::Status status = focal::gemm(p.params);
    if (!status.ok()) *error = status.message();
    return status.ok();
  }
#if defined(FOCAL_BENCH_OPENBLAS)
  const int m = int(c.m), n = int(c.n), k = int(c.k);
  if (c.m == 1) {  // OpenBLAS's best form for one row: a matrix-vector product
    cblas_sgemv(CblasRowMajor, CblasNoTrans, n, k, 1.0f, p.w[copy].as<float>(), k, p.x.as<float>(),
                1, 0.0f, p.y.as<float>(), 1);
  } else {  // y[m][n] = x[m][k] . W[n][k]^T, W in PyTorch's layout
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, p.x.as<float>(), k,
                p.w[copy].as<float>(), k, 0.0f, p.y.as<float>(), n);
  }
  return true;
#else
  *error = "built without OpenBLAS";
  return false;
#endif
}

// Seconds per call of every case that ran, for the summary.
std::map<std::string, double>& seconds_per_call() {
  static std::map<std::string, double> all;
  return all;
}

void run_case(benchmark::State& state, const Case& c) {
  Problem& p = problem_for(c);
  std::string error;
  if (!run_once(c, p, &error)) {  // untimed: checks the parameters, warms the caches
    state.SkipWithError(error.c_str());
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    run_once(c, p, &error);
    benchmark::DoNotOptimize(p.y.as<float>());
    benchmark::ClobberMemory();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (state.iterations() == 0 || seconds <= 0.0) return;
  const double per_call = seconds / double(state.iterations());
  seconds_per_call()[c.name] = per_call;
  const double gflops = c.flop() * 1e-9 / per_call;
  if (c.int8_activations) {
    state.counters["GOP/s"] = gflops;
    const double int8_peak = focal_bench::int8_dot_peak().gops;
    if (int8_peak > 0.0) state.counters["int8_peak_fraction"] = gflops / int8_peak;
    return;
  }
  state.counters["GFLOP/s"] = gflops;
  const focal_bench::MachinePeak& peak = focal_bench::machine_peak();
  if (peak.fma_gflops > 0.0) state.counters["peak_fraction"] = gflops / peak.fma_gflops;
  if (c.m == 1) state.counters["GB/s"] = c.weight_bytes() * 1e-9 / per_call;
}

std::vector<std::unique_ptr<Case>>& cases() {
  static std::vector<std::unique_ptr<Case>> all;
  return all;
}

std::string shape_name(size_t m, size_t k, size_t n) {
  return "m" + std::to_string(m) + "_k" + std::to_string(k) + "_n" + std::to_string(n);
}

void add_case(Runner runner, focal::DType type, size_t m, size_t k, size_t n, bool dram = false,
              bool int8_activations = false) {
  auto c = std::make_unique<Case>();
  c->runner = runner;
  c->type = type;
  c->m = m;
  c->k = k;
  c->n = n;
  c->dram = dram;
  c->int8_activations = int8_activations;
  c->name = std::string("gemm/") + (runner == Runner::kFocal ? "focal/" : "openblas/") +
            (int8_activations ? "w8a8" : focal::dtype_name(type)) + "/" + shape_name(m, k, n) +
            (dram ? "/dram" : "");
  cases().push_back(std::move(c));
  const Case* registered = cases().back().get();
  benchmark::RegisterBenchmark(
      registered->name.c_str(),
      [registered](benchmark::State& state) { run_case(state, *registered); })
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}

struct Int8Shape {
  size_t k, n;
};
constexpr Int8Shape kInt8Shapes[] = {{768, 768}, {768, 3072}, {3072, 768}};
constexpr size_t kInt8Rows[] = {1, 128, 512};

void register_cases() {
  const size_t k = 768;
  for (size_t n : {768, 3072}) {
    for (size_t m : {1, 32, 128, 512}) {
      add_case(Runner::kFocal, focal::DType::kF32, m, k, n);
#if defined(FOCAL_BENCH_OPENBLAS)
      add_case(Runner::kOpenBlas, focal::DType::kF32, m, k, n);
#endif
    }
    for (focal::DType type : {focal::DType::kF16, focal::DType::kBF16, focal::DType::kI8}) {
      add_case(Runner::kFocal, type, 1, k, n);
    }
  }
  for (size_t n : {768, 3072}) {
    for (focal::DType type :
         {focal::DType::kF32, focal::DType::kF16, focal::DType::kBF16, focal::DType::kI8}) {
      add_case(Runner::kFocal, type, 1, k, n, true);
    }
#if defined(FOCAL_BENCH_OPENBLAS)
    add_case(Runner::kOpenBlas, focal::DType::kF32, 1, k, n, true);
#endif
  }
  // Int8 activations on BERT-base's shapes (attention projections, FFN up and down).
  for (const Int8Shape& shape : kInt8Shapes) {
    for (size_t m : kInt8Rows) {
      add_case(Runner::kFocal, focal::DType::kI8, m, shape.k, shape.n, false, true);
      if (shape.k != 768) add_case(Runner::kFocal, focal::DType::kF32, m, shape.k, shape.n);
    }
  }
}

// Seconds per call of the named case, 0 if it did not run.
double seconds_of(const std::string& name) {
  const auto it = seconds_per_call().find(name);
  return it == seconds_per_call().end() ? 0.0 : it->second;
}

// w8a8 against f32 on the same shape, from the runs: GOP/s, the fraction of the int8
// dot-product peak, and how many times faster than f32 (same shape, same run).
void print_int8_summary() {
  const double int8_peak = focal_bench::int8_dot_peak().gops;
  std::printf("\n%-20s %10s %10s %9s %9s %9s %9s\n", "int8 activations", "w8a8 us", "f32 us",
              "GOP/s", "%i8pk", "GFLOP/s", "w8a8 x");
  for (const Int8Shape& shape : kInt8Shapes) {
    for (size_t m : kInt8Rows) {
      const std::string name = shape_name(m, shape.k, shape.n);
      const double int8_s = seconds_of("gemm/focal/w8a8/" + name);
      const double f32_s = seconds_of("gemm/focal/f32/" + name);
      if (int8_s == 0.0) continue;
      const double ops = 2.0 * double(m) * double(shape.k) * double(shape.n) * 1e-9;
      std::printf("%-20s %10.1f %10.1f %9.1f %9.1f %9.1f %9.2f\n", name.c_str(), int8_s * 1e6,
                  f32_s * 1e6, ops / int8_s, int8_peak > 0.0 ? 100.0 * ops / int8_s / int8_peak : 0.0,
                  f32_s > 0.0 ? ops / f32_s : 0.0, f32_s > 0.0 ? f32_s / int8_s : 0.0);
    }
  }
  std::printf(
      "(%%i8pk: percent of the measured int8 dot-product peak; w8a8 x: how many times faster\n"
      " int8 activations run than f32 on the same shape)\n");
}

// focal / OpenBLAS for every f32 shape, and f32 / quantized at m = 1, from the runs.
void print_summary() {
  const focal_bench::MachinePeak& peak = focal_bench::machine_peak();
  std::printf("\n%-20s %12s %12s %9s %9s %11s\n", "shape", "focal us", "openblas us", "focal/ob",
              "focal %pk", "openblas %pk");
  for (size_t n : {768, 3072}) {
    for (size_t m : {1, 32, 128, 512}) {
      const std::string shape = shape_name(m, 768, n);
      const double focal_s = seconds_of("gemm/focal/f32/" + shape),
                   blas_s = seconds_of("gemm/openblas/f32/" + shape);
      if (focal_s == 0.0) continue;
      const double flop = 2.0 * double(m) * double(n) * 768.0;
      const auto percent = [&](double s) {
        return s > 0.0 ? 100.0 * flop * 1e-9 / s / peak.fma_gflops : 0.0;
      };
      std::printf("%-20s %12.1f %12.1f %9.2f %9.1f %11.1f\n", shape.c_str(), focal_s * 1e6,
                  blas_s * 1e6, blas_s > 0.0 ? blas_s / focal_s : 0.0, percent(focal_s),
                  percent(blas_s));
    }
  }
  std::printf(
      "(focal/ob: how many times faster focal is; %%pk: percent of the measured FMA peak)\n\n");
  std::printf("%-26s %10s %10s %10s %12s\n", "decode m=1", "f16 x", "bf16 x", "i8 x", "f32 vs ob");
  for (const char* where : {"", "/dram"}) {
    for (size_t n : {768, 3072}) {
      const std::string shape = shape_name(1, 768, n) + where;
      const double f32 = seconds_of("gemm/focal/f32/" + shape);
      const double blas = seconds_of("gemm/openblas/f32/" + shape);
      const auto speedup = [&](const char* type) {
        const double s = seconds_of(std::string("gemm/focal/") + type + "/" + shape);
        return s > 0.0 ? f32 / s : 0.0;
      };
      if (f32 > 0.0) {
        std::printf("%-26s %10.2f %10.2f %10.2f %12.2f\n", shape.c_str(), speedup("f16"),
                    speedup("bf16"), speedup("i8"), blas / f32);
      }
    }
  }
  std::printf(
      "(speed-up of quantized weights over f32 weights, same call; /dram: weights streamed\n"
      " from memory; f32 vs ob: how many times faster focal's f32 is than OpenBLAS's sgemv)\n");
}

}  // namespace

int main(int argc, char** argv) {
  register_cases();
  int exit_code = 0;
  if (focal_bench::started_only_to_list(&argc, argv, &exit_code)) return exit_code;
#if defined(FOCAL_BENCH_OPENBLAS)
  openblas_set_num_threads(1);
  benchmark::AddCustomContext("openblas_corename", openblas_get_corename());
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  benchmark::AddCustomContext("OPENBLAS_CORETYPE", coretype != nullptr ? coretype : "(unset)");
  if (coretype != nullptr) {
    std::fprintf(stderr,
                 "warning: OPENBLAS_CORETYPE=%s forces OpenBLAS's kernels; for a fair peer run\n"
                 "  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE %s\n",
                 coretype, argv[0]);
  }
#else
  benchmark::AddCustomContext("openblas_corename", "(built without OpenBLAS)");
#endif
  const focal_bench::MachinePeak& peak = focal_bench::machine_peak();
  benchmark::AddCustomContext("gemm_isa", focal::gemm_isa());
  benchmark::AddCustomContext("fma_peak_isa", peak.isa);
  benchmark::AddCustomContext("fma_peak_gflops", format_double("%.1f", peak.fma_gflops));
  const focal_bench::Int8DotPeak& int8_peak = focal_bench::int8_dot_peak();
  benchmark::AddCustomContext("gemm_int8_isa", focal::gemm_int8_isa());
  benchmark::AddCustomContext("int8_peak_isa", *int8_peak.isa != '\0' ? int8_peak.isa : "(none)");
  benchmark::AddCustomContext("int8_peak_gops", format_double("%.1f", int8_peak.gops));
  benchmark::AddCustomContext("threads", "1 (focal without a ParallelFor, OpenBLAS set to 1)");

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  print_int8_summary();
  return 0;
}
