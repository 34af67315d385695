// Whole models at their real sizes, built by the converter's presets with random
// weights (no checkpoints needed), timed one thread:
//   bert_base/seq:128, bert_tiny/seq:128   encoder forward, batch 1: GFLOP/s (the
//       matrix products and attention: 8Sd^2 + 4Sd*ffn + 4S^2 d per layer) and
//       peak_fraction of this core's measured FMA peak
//   gpt2_small_decode/prompt:32/{f32,f16,int8,int4}   one generated token after a 32-token
//       prompt (KV cache, logits over the full vocabulary, greedy): tokens_per_s, and
//       bw_fraction = (weight bytes read per token / time) / measured DRAM read GB/s
//       (the weights, 0.2-0.5 GB, cannot stay in cache; the embedding table is not
//       counted, as a step reads one row of it, the tied LM head copy is)
//   seq2seq_bilstm/src:20/steps:20[/f16|/int8]   an RNN encoder-decoder with Bahdanau
//       attention translating one 20-token sentence in 20 greedy steps: ms per sentence
// bench/peers/run_models times PyTorch on the same cases in the same run.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench_support.h"
#include "focal/focal.h"
#include "machine_peak.h"
#include "model_writer.h"
#include "presets/preset.h"

namespace {

using focal_bench::AlignedBuffer;

struct BuiltModel {
  AlignedBuffer file;
  std::unique_ptr<focal::Model> model;
  AlignedBuffer arena;
  std::unique_ptr<focal::Session> session;
  uint64_t weight_bytes = 0;
};

// Bytes of constants a run reads in full: every op's constant operands except the
// Embedding tables, of which a decode step reads one row.
uint64_t bytes_read_per_run(const focal::Model& m) {
  std::vector<bool> counted(static_cast<size_t>(m.tensor_count()), false);
  uint64_t bytes = 0;
  for (int o = 0; o < m.op_count(); ++o) {
    if (std::strcmp(m.op(o).kind, "Embedding") == 0) continue;
    for (int i = 0; i < m.op(o).input_count; ++i) {
      const int t = m.op_input(o, i);
      if (t < 0 || counted[size_t(t)] || m.tensor(t).role != focal::TensorRole::kConstant) continue;
      counted[size_t(t)] = true;
      bytes += m.tensor(t).max_bytes;
    }
  }
  return bytes;
}

std::unique_ptr<BuiltModel> build(const char* preset, const nlohmann::json& config, int64_t max_seq,
                                  focal::DType weight_type) {
  focal::ModelWriter writer;
  writer.set_dense_weight_type(weight_type);
  focal::convert::WeightSource weights = focal::convert::WeightSource::random(1);
  focal::convert::GraphBuilder builder(writer, weights);
  focal::convert::PresetOptions options;
  options.max_batch = 1;
  options.max_seq = max_seq;
  const focal::Status built = focal::convert::find_preset(preset)->build(config, options, builder);
  if (!built.ok()) throw std::runtime_error(built.message());
  const std::vector<uint8_t> bytes = writer.finish().value();
  auto m = std::make_unique<BuiltModel>();
  m->file = AlignedBuffer(bytes.size());
  std::memcpy(m->file.as<uint8_t>(), bytes.data(), bytes.size());
  auto model = focal::Model::from_bytes(m->file.as<uint8_t>(), bytes.size());
  if (!model.ok()) throw std::runtime_error(model.status().message());
  m->model = std::make_unique<focal::Model>(model.value());
  m->weight_bytes = bytes_read_per_run(*m->model);
  const size_t arena_bytes = focal::Session::required_arena_bytes(*m->model, focal::SessionOptions()).value();
  m->arena = AlignedBuffer(arena_bytes);
  auto session = focal::Session::create(*m->model, focal::SessionOptions(), m->arena.as<uint8_t>(), arena_bytes);
  if (!session.ok()) throw std::runtime_error(session.status().message());
  m->session = std::make_unique<focal::Session>(session.value());
  return m;
}

struct EncoderCase {
  const char* name;
  int64_t layers, hidden, heads, intermediate, seq;
};

const EncoderCase kEncoders[] = {
    {"bert_base/seq:128", 12, 768, 12, 3072, 128},
    {"bert_tiny/seq:128", 2, 128, 2, 512, 128},
};

nlohmann::json bert_config(const EncoderCase& c) {
  return {{"vocab_size", 30522}, {"hidden_size", c.hidden},        {"num_hidden_layers", c.layers},
          {"num_attention_heads", c.heads}, {"intermediate_size", c.intermediate},
          {"max_position_embeddings", 512}, {"type_vocab_size", 2}};
}

double encoder_flops(const EncoderCase& c) {
  const double s = double(c.seq), d = double(c.hidden), f = double(c.intermediate);
  return double(c.layers) * (8.0 * s * d * d + 4.0 * s * d * f + 4.0 * s * s * d);
}

void set_ids(focal::Session& s, const char* name, int64_t count, int32_t value) {
  std::vector<int32_t> ids(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) ids[size_t(i)] = value < 0 ? int32_t((i * 7919) % 30000) : value;
  focal::Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = count;
  if (!s.set_input(s.find_input(name), shape, ids.data(), ids.size() * 4).ok()) throw std::runtime_error("set_input");
}

void run_encoder(benchmark::State& state, const EncoderCase& c) {
  BuiltModel& m = focal_bench::current_problem<BuiltModel>(
      c, [](const EncoderCase& e) { return build("bert", bert_config(e), e.seq, focal::DType::kF32); });
  focal::Session& s = *m.session;
  for (auto _ : state) {
    set_ids(s, "input_ids", c.seq, -1);
    set_ids(s, "attention_mask", c.seq, 1);
    set_ids(s, "token_type_ids", c.seq, 0);
    if (!s.run().ok()) state.SkipWithError("run failed");
  }
  const double gflops = encoder_flops(c) * double(state.iterations()) / 1e9;
  state.counters["GFLOP/s"] = benchmark::Counter(gflops, benchmark::Counter::kIsRate);
  const auto& peak = focal_bench::machine_peak();
  if (peak.fma_gflops > 0.0) {
    state.counters["peak_fraction"] =
        benchmark::Counter(gflops / peak.fma_gflops, benchmark::Counter::kIsRate);
  }
}

struct DecoderCase {
  const char* name;
  focal::DType weights;
};

const DecoderCase kDecoders[] = {
    {"gpt2_small_decode/prompt:32/f32", focal::DType::kF32},
    {"gpt2_small_decode/prompt:32/f16", focal::DType::kF16},
    {"gpt2_small_decode/prompt:32/int8", focal::DType::kI8},
    {"gpt2_small_decode/prompt:32/int4", focal::DType::kI4},  // groups of 32 (the writer's default)
};

nlohmann::json gpt2_config() {
  return {{"vocab_size", 50257}, {"n_embd", 768}, {"n_layer", 12}, {"n_head", 12}, {"n_positions", 1024}};
}

void run_decoder(benchmark::State& state, const DecoderCase& c) {
  constexpr int64_t kPrompt = 32, kContext = 256;
  BuiltModel& m = focal_bench::current_problem<BuiltModel>(
      c, [](const DecoderCase& d) { return build("gpt2", gpt2_config(), kContext, d.weights); });
  focal::Session& s = *m.session;
  const int logits = s.find_output("logits");
  int32_t token = 11;
  s.reset_state();
  for (auto _ : state) {
    if (s.cached_length() == 0 || s.cached_length() >= kContext) {  // a fresh prompt, untimed
      state.PauseTiming();
      s.reset_state();
      set_ids(s, "input_ids", kPrompt, -1);
      if (!s.run().ok()) state.SkipWithError("prefill failed");
      state.ResumeTiming();
    }
    set_ids(s, "input_ids", 1, token);
    if (!s.run().ok()) state.SkipWithError("step failed");
    const float* l = static_cast<const float*>(s.output(logits).data);
    int32_t best = 0;
    for (int32_t v = 1; v < 50257; ++v) best = l[v] > l[best] ? v : best;
    token = best;
  }
  state.counters["tokens_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  const double gb = double(m.weight_bytes) * double(state.iterations()) / 1e9;
  state.counters["weight_GB/s"] = benchmark::Counter(gb, benchmark::Counter::kIsRate);
  const auto& peak = focal_bench::machine_peak();
  if (peak.dram_read_gbs > 0.0) {
    state.counters["bw_fraction"] = benchmark::Counter(gb / peak.dram_read_gbs, benchmark::Counter::kIsRate);
  }
}

// An RNN sequence-to-sequence model translating one sentence: a 20-token source through
// a bidirectional LSTM encoder (embedding 128, hidden 256), then 20 greedy steps of a
// Bahdanau-attention LSTM decoder (vocabularies of 1000): ms per sentence.
constexpr size_t kSeq2SeqSource = 20, kSeq2SeqSteps = 20;

nlohmann::json seq2seq_config() {
  return {{"cell", "lstm"},      {"attention", "bahdanau"}, {"hidden", 256},      {"decoder_hidden", 256},
          {"embedding", 128},    {"encoder_layers", 1},     {"bidirectional", true}, {"src_vocab", 1000},
          {"tgt_vocab", 1000},   {"max_src_len", 32},       {"attention_units", 256}};
}

// The model needs attention weights of its own size: WeightSource::random gives every
// tensor the shape asked for, which the preset derives from the config.
struct Seq2SeqCase {
  const char* name;
  focal::DType weights;
};

const Seq2SeqCase kSeq2Seq[] = {
    {"seq2seq_bilstm/src:20/steps:20", focal::DType::kF32},
    {"seq2seq_bilstm/src:20/steps:20/f16", focal::DType::kF16},
    {"seq2seq_bilstm/src:20/steps:20/int8", focal::DType::kI8},
};

void run_seq2seq(benchmark::State& state, const Seq2SeqCase& c) {
  BuiltModel& m = focal_bench::current_problem<BuiltModel>(
      c, [](const Seq2SeqCase& s) { return build("rnn-seq2seq", seq2seq_config(), 32, s.weights); });
  focal::TranslateOptions options;
  options.max_steps = kSeq2SeqSteps;
  options.eos_id = -1;  // always the full 20 steps
  std::vector<uint64_t> scratch(focal::translate_scratch_bytes(options, kSeq2SeqSource) / 8 + 1);
  std::vector<int32_t> source(kSeq2SeqSource), tokens(kSeq2SeqSteps);
  for (size_t i = 0; i < source.size(); ++i) source[i] = int32_t(3 + (i * 37) % 997);
  for (auto _ : state) {
    auto result = focal::translate(*m.session, source.data(), source.size(), options, scratch.data(),
                                   scratch.size() * 8, tokens.data(), nullptr);
    if (!result.ok()) state.SkipWithError(result.status().message());
    benchmark::DoNotOptimize(tokens.data());
  }
  state.counters["sentences_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  for (const EncoderCase& c : kEncoders) {
    benchmark::RegisterBenchmark(c.name, [&c](benchmark::State& s) { run_encoder(s, c); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const DecoderCase& c : kDecoders) {
    benchmark::RegisterBenchmark(c.name, [&c](benchmark::State& s) { run_decoder(s, c); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const Seq2SeqCase& c : kSeq2Seq) {
    benchmark::RegisterBenchmark(c.name, [&c](benchmark::State& s) { run_seq2seq(s, c); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (!focal_bench::only_listing(argc, argv)) {
    const auto& peak = focal_bench::machine_peak();
    benchmark::AddCustomContext("fma_peak_gflops", focal_bench::format_double("%.1f", peak.fma_gflops));
    benchmark::AddCustomContext("fma_peak_isa", peak.isa);
    benchmark::AddCustomContext("dram_read_gbs", focal_bench::format_double("%.1f", peak.dram_read_gbs));
    benchmark::AddCustomContext("gemm_isa", focal::gemm_isa());
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
