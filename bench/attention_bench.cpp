// Google Benchmark cases for focal::attention on its own buffers, in the layout
// [batch, seq, heads, dim]:
//
//   attention/prefill/b1_h8_d64_n{128,512,2048}/{causal,full}[/threads:2]
//   attention/decode/h12_d64_kv{512,2048,8192}/{f32,f16}
//
// (Google Benchmark appends "/real_time" to each name: every case is timed in wall time.)
// Counters: GFLOP/s (useful work: 4*b*h*n*n*d for full prefill, 2*b*h*n*(n+1)*d for
// causal, 4*h*n*d for decode); peak_fraction = GFLOP/s / (workers x the single-core FMA
// peak measured at start-up); for decode, GB/s of K and V read and bw_fraction = that /
// the single-core DRAM read bandwidth measured at start-up (the small KV caches fit in
// L2/L3, so their fraction can exceed 1). The JSON context carries the measured limits
// and focal::attention_isa(). bench/peers/run_attention compares with PyTorch and ONNX Runtime.
//
// "/threads:2" cases pass the engine a 2-worker focal::ThreadPool (created once);
// Google Benchmark itself runs every case on one thread.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "focal/attention.h"
#include "focal/parallel.h"
#include "bench_support.h"
#include "simd/vec_scalar.hpp"
#include "machine_peak.h"
#include "thread_pool.h"

namespace {

using focal_bench::AlignedBuffer;
using focal_bench::fill_uniform;
using focal_bench::format_double;

// ---------------------------------------------------------------------------------------
// Workers: the engine's own Linux pool (targets/linux/thread_pool.h), created once.

focal::ThreadPool* pool_for(int workers) {
  if (workers <= 1) return nullptr;  // no ParallelFor: the engine runs on the caller
  static std::unique_ptr<focal::ThreadPool> pool;
  if (pool == nullptr || pool->workers() != workers) pool = std::make_unique<focal::ThreadPool>(workers);
  return pool.get();
}

// ---------------------------------------------------------------------------------------
// The cases.

struct Case {
  std::string name;
  bool decode = false;
  size_t batch = 1, heads = 8, seq = 128, head_dim = 64;  // seq: n (prefill) or kv_len
  bool causal = false;
  focal::KvType kv_type = focal::KvType::kF32;
  int workers = 1;

  size_t q_len() const { return decode ? 1 : seq; }
  double flop() const {
    const double b = double(batch), h = double(heads), n = double(seq), d = double(head_dim);
    if (decode) return 4.0 * h * n * d;
    return causal ? 2.0 * b * h * n * (n + 1.0) * d : 4.0 * b * h * n * n * d;
  }
  double kv_bytes() const {
    const size_t element = kv_type == focal::KvType::kF16 ? 2 : 4;
    return 2.0 * double(batch * seq * heads * head_dim * element);
  }
};

struct Problem {
  focal::AttentionParams params;
  AlignedBuffer q, k, v, out, workspace;
  size_t workspace_bytes = 0;
};

focal::AttentionStrides bshd_strides(size_t seq, size_t heads, size_t head_dim) {
  focal::AttentionStrides s;
  s.batch = seq * heads * head_dim;
  s.seq = heads * head_dim;
  s.head = head_dim;
  return s;
}

std::unique_ptr<Problem> make_problem(const Case& c) {
  auto p = std::make_unique<Problem>();
  focal::AttentionParams& a = p->params;
  a.batch = c.batch;
  a.heads = c.heads;
  a.kv_heads = c.heads;
  a.q_len = c.q_len();
  a.kv_len = c.seq;
  a.head_dim = c.head_dim;
  a.scale = 0.0f;  // 1/sqrt(head_dim)
  a.mask.causal = c.causal;
  a.mask.causal_offset = 0;
  a.kv_type = c.kv_type;

  const size_t q_count = c.batch * a.q_len * c.heads * c.head_dim;
  const size_t kv_count = c.batch * c.seq * c.heads * c.head_dim;
  const size_t kv_element = c.kv_type == focal::KvType::kF16 ? 2 : 4;
  p->q = AlignedBuffer(q_count * sizeof(float));
  p->out = AlignedBuffer(q_count * sizeof(float));
  p->k = AlignedBuffer(kv_count * kv_element);
  p->v = AlignedBuffer(kv_count * kv_element);
  fill_uniform(p->q.as<float>(), q_count, 1);
  if (c.kv_type == focal::KvType::kF16) {
    std::vector<float> values(kv_count);
    fill_uniform(values.data(), kv_count, 2);
    for (size_t i = 0; i < kv_count; ++i) p->k.as<uint16_t>()[i] = focal::simd::float_to_half(values[i]);
    fill_uniform(values.data(), kv_count, 3);
    for (size_t i = 0; i < kv_count; ++i) p->v.as<uint16_t>()[i] = focal::simd::float_to_half(values[i]);
  } else {
    fill_uniform(p->k.as<float>(), kv_count, 2);
    fill_uniform(p->v.as<float>(), kv_count, 3);
  }

  a.q = p->q.as<float>();
  a.q_strides = bshd_strides(a.q_len, c.heads, c.head_dim);
  a.k = p->k.as<void>();
  a.k_strides = bshd_strides(c.seq, c.heads, c.head_dim);
  a.v = p->v.as<void>();
  a.v_strides = a.k_strides;
  a.out = p->out.as<float>();
  a.out_strides = a.q_strides;

  p->workspace_bytes = focal::attention_workspace_bytes(a, c.workers);
  p->workspace = AlignedBuffer(p->workspace_bytes);
  return p;
}

Problem& problem_for(const Case& c) { return focal_bench::current_problem<Problem>(c, make_problem); }

void run_case(benchmark::State& state, const Case& c) {
  Problem& p = problem_for(c);
  focal::ParallelFor* parallel = pool_for(c.workers);
  // One untimed call: checks the parameters and warms the caches up.
  focal::Status status =
      focal::attention(p.params, p.workspace.as<void>(), p.workspace_bytes, parallel);
  if (!status.ok()) {
    state.SkipWithError(status.message());
    return;
  }
  // Rates from the wall time of the loop, the same interval Google Benchmark reports as
  // real time, as plain numbers (benchmark's rate counters print "/s" after fractions).
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    status = focal::attention(p.params, p.workspace.as<void>(), p.workspace_bytes, parallel);
    benchmark::DoNotOptimize(p.params.out);
    benchmark::ClobberMemory();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!status.ok()) {
    state.SkipWithError(status.message());
    return;
  }
  if (state.iterations() == 0 || seconds <= 0.0) return;

  const focal_bench::MachinePeak& peak = focal_bench::machine_peak();
  const double per_second = double(state.iterations()) / seconds;
  const double gflops = c.flop() * 1e-9 * per_second;
  state.counters["GFLOP/s"] = gflops;
  if (c.decode) {
    const double gbs = c.kv_bytes() * 1e-9 * per_second;
    state.counters["GB/s"] = gbs;
    if (peak.dram_read_gbs > 0.0) state.counters["bw_fraction"] = gbs / peak.dram_read_gbs;
  } else if (peak.fma_gflops > 0.0) {
    state.counters["peak_fraction"] = gflops / (peak.fma_gflops * double(c.workers));
  }
}

std::vector<std::unique_ptr<Case>>& cases() {
  static std::vector<std::unique_ptr<Case>> all;
  return all;
}

void add_case(const Case& c) {
  cases().push_back(std::make_unique<Case>(c));
  const Case* registered = cases().back().get();
  benchmark::RegisterBenchmark(
      registered->name.c_str(),
      [registered](benchmark::State& state) { run_case(state, *registered); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

void register_cases() {
  auto prefill = [](size_t n, bool causal, int workers) {
    Case c;
    c.batch = 1;
    c.heads = 8;
    c.head_dim = 64;
    c.seq = n;
    c.causal = causal;
    c.workers = workers;
    c.name = "attention/prefill/b1_h8_d64_n" + std::to_string(n) + (causal ? "/causal" : "/full");
    if (workers > 1) c.name += "/threads:" + std::to_string(workers);
    add_case(c);
  };
  for (size_t n : {128, 512, 2048}) {
    prefill(n, true, 1);
    prefill(n, false, 1);
  }
  for (size_t n : {512, 2048}) {
    prefill(n, true, 2);
    prefill(n, false, 2);
  }
  for (size_t kv : {512, 2048, 8192}) {
    for (focal::KvType type : {focal::KvType::kF32, focal::KvType::kF16}) {
      Case c;
      c.decode = true;
      c.heads = 12;
      c.head_dim = 64;
      c.seq = kv;
      c.kv_type = type;
      c.name = "attention/decode/h12_d64_kv" + std::to_string(kv) +
               (type == focal::KvType::kF16 ? "/f16" : "/f32");
      add_case(c);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_cases();
  int exit_code = 0;
  if (focal_bench::started_only_to_list(&argc, argv, &exit_code)) return exit_code;

  const focal_bench::MachinePeak& peak = focal_bench::machine_peak();
  benchmark::AddCustomContext("attention_isa", focal::attention_isa());
  benchmark::AddCustomContext("fma_peak_isa", peak.isa);
  benchmark::AddCustomContext("fma_peak_gflops", format_double("%.1f", peak.fma_gflops));
  benchmark::AddCustomContext("dram_read_gbs", format_double("%.1f", peak.dram_read_gbs));
  benchmark::AddCustomContext("peak_fraction_basis", "workers x single-core fma_peak_gflops");

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
