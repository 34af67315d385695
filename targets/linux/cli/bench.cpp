// focal bench MODEL [--seq N] [--prompt N --gen N] [--threads T] [--warmup W] [--repeat R]
//                   [--no-peak] [--json] [--plot FILE.svg]
// Times a model on this device: latency percentiles, prefill and decode tokens/s, time to
// first token (decoders), arena and KV-cache bytes, peak RSS, GFLOP/s of the matrix work
// and its fraction of this core's measured FMA peak (and for int8 activations, GOP/s of
// the int8 products against the int8 dot-product peak), a per-op time table, the CPU and
// the instruction sets in use. --json prints one object (docs/bench.schema.json).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "atomic_file.h"
#include "cli/bench_plot.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/loaded_model.h"
#include "cpu_cores.h"
#include "focal/attention.h"
#include "focal/gemm.h"
#include "focal/session.h"
#include "focal/translate.h"
#include "machine_peak.h"
#include "owned_session.h"

namespace focal {
namespace cli {
namespace {

using Clock = std::chrono::steady_clock;

const char* kUsage =
    "usage: focal bench MODEL.focal [--seq N] [--prompt N --gen N] [--threads T]\n"
    "                   [--warmup W] [--repeat R] [--no-peak] [--json] [--plot FILE.svg]\n"
    "Runs the model on synthetic inputs and reports latency (p50/p90/p99 over R runs after\n"
    "W warm-ups), tokens/s, memory and a per-op time table. Decoders (a KV cache): a prefill\n"
    "of --prompt tokens, then --gen decode steps, timed one by one. Sequence-to-sequence\n"
    "models: a --seq source, then --gen greedy steps. Others: one run at --seq tokens.\n"
    "--no-peak skips measuring the FMA and int8 dot-product peaks (2 s; --json then has null\n"
    "for them). --json prints docs/bench.schema.json. --plot FILE.svg draws the time per op\n"
    "kind. --threads: default the physical cores. Progress goes to stderr when it is a terminal.\n";

struct Options {
  const char* model = nullptr;
  int64_t seq = 0, prompt = 32, gen = 32;
  int threads = physical_core_count(), warmup = 2, repeat = 10;
  bool json = false, peak = true;
  std::string plot;  // --plot FILE.svg
};

Status parse(int argc, char** argv, Options* o) {
  Arguments args(argc, argv);
  while (args.more()) {
    if (args.integer("--seq", 1, kMaxTokens, &o->seq) || args.integer("--prompt", 1, kMaxTokens, &o->prompt) ||
        args.integer("--gen", 1, kMaxTokens, &o->gen) || args.integer("--threads", 1, kMaxThreads, &o->threads) ||
        args.integer("--warmup", 0, kMaxRepeats, &o->warmup) || args.integer("--repeat", 1, kMaxRepeats, &o->repeat)) {
    } else if (args.flag("--json")) {
      o->json = true;
    } else if (args.flag("--no-peak")) {
      o->peak = false;
    } else if (args.text("--plot", &o->plot)) {
    } else if (!args.positional(&o->model)) {
      args.refuse_current();
    }
  }
  if (!args.status().ok()) return args.status();
  if (o->model == nullptr) return missing_argument("MODEL.focal");
  const std::string svg = ".svg";
  if (!o->plot.empty() && (o->plot.size() <= svg.size() || o->plot.compare(o->plot.size() - svg.size(), svg.size(), svg) != 0)) {
    return Status::error(StatusCode::kInvalidArgument, "--plot: '%s' does not end in .svg", o->plot.c_str());
  }
  return Status();
}

// "focal bench: run 3 of 12", rewritten in place, only where someone watches (a log or a
// pipe would collect every line of it).
void show_progress(const Options& o, int run, int runs) {
  if (!o.json && isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\rfocal bench: run %d of %d", run, runs);
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Per-op wall time through the session's observer.
struct OpTimes {
  Clock::time_point last;
  std::vector<double> ms;
  static void observe(int op, void* user) {
    auto* t = static_cast<OpTimes*>(user);
    const auto now = Clock::now();
    if (op >= 0) t->ms[size_t(op)] += std::chrono::duration<double, std::milli>(now - t->last).count();
    t->last = now;
  }
};

// Matrix-product FLOPs of one run at the session's current shapes, as each op counts
// its own (Session::op_flops).
double run_flops(const Session& s) {
  double flops = 0.0;
  for (int o = 0; o < s.model().op_count(); ++o) flops += s.op_flops(o);
  return flops;
}

// The part of run_flops on int8 activations (Session::op_int8_flops): 0 for f32 models.
double run_int8_flops(const Session& s) {
  double flops = 0.0;
  for (int o = 0; o < s.model().op_count(); ++o) flops += s.op_int8_flops(o);
  return flops;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, size_t(p / 100.0 * double(v.size() - 1) + 0.5));
  return v[i];
}

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0 || line.rfind("Hardware", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

// Synthetic inputs: token ids (inputs named *ids*, but not *type*) below the smallest
// embedding table, masks of ones, other integers (segment ids) zero, floats in [-1, 1].
Status set_inputs(Session& s, int64_t seq, int64_t batch) {
  const Model& m = s.model();
  int64_t vocab = 1 << 30;
  for (int o = 0; o < m.op_count(); ++o) {
    const int64_t rows = m.op_id_limit(o, 0);
    if (rows > 0) vocab = std::min(vocab, rows);
  }
  for (int i = 0; i < s.input_count(); ++i) {
    const TensorInfo t = m.tensor(m.input_tensor(i));
    Shape shape = t.shape;
    for (int d = 0; d < shape.rank; ++d) {
      const char* symbol = t.dim_symbols[d] >= 0 ? m.symbol(t.dim_symbols[d]).name : "";
      if (std::strcmp(symbol, "batch") == 0) shape.dims[d] = batch;
      else if (t.dim_symbols[d] >= 0) shape.dims[d] = std::min(seq, shape.dims[d]);
    }
    const size_t count = size_t(shape.element_count());
    std::vector<uint32_t> data(count);
    const bool mask = std::strstr(t.name, "mask") != nullptr;
    const bool tokens = std::strstr(t.name, "ids") != nullptr && std::strstr(t.name, "type") == nullptr;
    for (size_t k = 0; k < count; ++k) {
      if (t.dtype == DType::kI32) {
        const int32_t v = mask ? 1 : tokens ? int32_t((k * 7919 + 13) % uint64_t(vocab)) : 0;
        std::memcpy(&data[k], &v, 4);
      } else {
        const float v = float((k * 7919) % 2001) / 1000.0f - 1.0f;
        std::memcpy(&data[k], &v, 4);
      }
    }
    FOCAL_RETURN_IF_ERROR(s.set_input(i, shape, data.data(), count * 4));
  }
  return Status();
}

Status set_token(Session& s, int32_t token) {
  const int input = s.find_input("input_ids");
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = 1;
  return s.set_input(input, shape, &token, 4);
}

struct Report {
  std::string kind;
  std::vector<double> latencies_ms;  // per run (encoder) or per decode step (decoder)
  double ttft_ms = 0, prefill_tokens_per_s = 0, decode_tokens_per_s = 0;
  double gflops = 0;
  double flops_per_run = 0;
  double int8_gops = 0;  // int8-activation products per second (2 * M * N * K each)
};

Status bench_decoder(Session& s, const Options& o, Report* r) {
  r->kind = "decoder";
  const int64_t capacity = s.cache_capacity();
  if (o.prompt + o.gen > capacity) {
    return Status::error(StatusCode::kOutOfRange, "--prompt %lld + --gen %lld exceed the planned context %lld",
                         (long long)o.prompt, (long long)o.gen, (long long)capacity);
  }
  double prefill_total = 0, flops = 0, int8_flops = 0, flop_ms = 0;
  for (int rep = -o.warmup; rep < o.repeat; ++rep) {
    s.reset_state();
    FOCAL_RETURN_IF_ERROR(set_inputs(s, o.prompt, 1));
    auto start = Clock::now();
    FOCAL_RETURN_IF_ERROR(s.run());
    const double prefill = ms_since(start);
    const double prefill_flops = run_flops(s), prefill_int8_flops = run_int8_flops(s);
    for (int64_t g = 0; g < o.gen; ++g) {
      FOCAL_RETURN_IF_ERROR(set_token(s, int32_t((g * 31 + 7) % 100)));
      start = Clock::now();
      FOCAL_RETURN_IF_ERROR(s.run());
      const double step = ms_since(start);
      if (rep >= 0) {
        r->latencies_ms.push_back(step);
        flops += run_flops(s);
        int8_flops += run_int8_flops(s);
        flop_ms += step;
      }
    }
    if (rep >= 0) {
      prefill_total += prefill;
      r->ttft_ms += prefill / o.repeat;
      flops += prefill_flops;
      int8_flops += prefill_int8_flops;
      flop_ms += prefill;
    }
    show_progress(o, rep + o.warmup + 1, o.warmup + o.repeat);
  }
  r->prefill_tokens_per_s = double(o.prompt) * o.repeat / (prefill_total / 1000.0);
  double decode_ms = 0;
  for (double v : r->latencies_ms) decode_ms += v;
  r->decode_tokens_per_s = double(r->latencies_ms.size()) / (decode_ms / 1000.0);
  r->gflops = flops / (flop_ms / 1000.0) / 1e9;
  r->int8_gops = int8_flops / (flop_ms / 1000.0) / 1e9;
  r->flops_per_run = flops / o.repeat;
  return Status();
}

// The longest sequence the plan allows in the inputs bench fills (`only`: that input;
// null: all of them): the smallest planned size of their symbolic dims other than batch,
// as set_inputs sizes each of those dims to the requested length. 0: no such dim.
int64_t planned_length(const Model& m, const char* only) {
  int64_t longest = 0;
  for (int i = 0; i < m.input_count(); ++i) {
    const TensorInfo t = m.tensor(m.input_tensor(i));
    if (only != nullptr && std::strcmp(t.name, only) != 0) continue;
    for (int d = 0; d < t.shape.rank; ++d) {
      if (t.dim_symbols[d] < 0 || std::strcmp(m.symbol(t.dim_symbols[d]).name, "batch") == 0) continue;
      longest = longest == 0 ? t.shape.dims[d] : std::min(longest, t.shape.dims[d]);
    }
  }
  return longest;
}

// A requested length beyond the plan is refused rather than clamped, so the reported
// tokens/s are always for the tokens that ran.
Status check_length(const char* option, int64_t requested, int64_t planned) {
  if (requested <= planned) return Status();
  return Status::error(StatusCode::kOutOfRange, "%s %lld exceeds the model's planned length %lld", option,
                       static_cast<long long>(requested), static_cast<long long>(planned));
}

Status bench_seq2seq(Session& s, const Options& o, Report* r) {
  r->kind = "seq2seq";
  // input_ids (t5, marian, rnn-seq2seq), or source_ids (files written before)
  int64_t planned_source = planned_length(s.model(), "input_ids");
  if (planned_source == 0) planned_source = planned_length(s.model(), "source_ids");
  if (planned_source == 0) {
    return Status::error(StatusCode::kInvalidArgument, "the model has no input 'input_ids' (or 'source_ids')");
  }
  FOCAL_RETURN_IF_ERROR(check_length("--seq", o.seq, planned_source));
  // A decoder with a KV cache keeps one position per step; a recurrent one has no limit.
  if (s.cache_capacity() > 0) FOCAL_RETURN_IF_ERROR(check_length("--gen", o.gen, s.cache_capacity()));
  const int64_t source = o.seq > 0 ? o.seq : std::min<int64_t>(20, planned_source);
  TranslateOptions options;
  options.max_steps = size_t(o.gen);
  options.eos_id = -1;
  std::vector<uint64_t> scratch(translate_scratch_bytes(options, size_t(source)) / 8 + 1);
  std::vector<int32_t> ids(static_cast<size_t>(source)), tokens(static_cast<size_t>(o.gen));
  for (int64_t i = 0; i < source; ++i) ids[size_t(i)] = int32_t(3 + i % 20);
  for (int rep = -o.warmup; rep < o.repeat; ++rep) {
    const auto start = Clock::now();
    auto result = translate(s, ids.data(), ids.size(), options, scratch.data(), scratch.size() * 8, tokens.data(),
                            nullptr);
    if (!result.ok()) return result.status();
    if (rep >= 0) r->latencies_ms.push_back(ms_since(start));
  }
  double total = 0;
  for (double v : r->latencies_ms) total += v;
  r->decode_tokens_per_s = double(o.gen) * double(r->latencies_ms.size()) / (total / 1000.0);
  return Status();
}

Status bench_once(Session& s, const Options& o, Report* r) {
  r->kind = "forward";
  const int64_t planned = planned_length(s.model(), nullptr);
  if (planned == 0 && o.seq > 0) {
    return Status::error(StatusCode::kInvalidArgument, "--seq: the model's inputs have no sequence dimension");
  }
  FOCAL_RETURN_IF_ERROR(check_length("--seq", o.seq, planned));
  const int64_t seq = o.seq > 0 ? o.seq : std::max<int64_t>(1, planned);  // default: the planned maximum
  for (int rep = -o.warmup; rep < o.repeat; ++rep) {
    FOCAL_RETURN_IF_ERROR(set_inputs(s, seq, 1));
    s.reset_state();
    const auto start = Clock::now();
    FOCAL_RETURN_IF_ERROR(s.run());
    if (rep >= 0) r->latencies_ms.push_back(ms_since(start));
    show_progress(o, rep + o.warmup + 1, o.warmup + o.repeat);
  }
  r->flops_per_run = run_flops(s);
  const double p50 = percentile(r->latencies_ms, 50);
  r->gflops = r->flops_per_run / (p50 / 1000.0) / 1e9;
  r->int8_gops = run_int8_flops(s) / (p50 / 1000.0) / 1e9;
  r->prefill_tokens_per_s = double(seq) / (p50 / 1000.0);
  return Status();
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// The limits results are stated against, for `threads` cores (one core's times threads).
struct Peaks {
  double fma_gflops = 0, int8_gops = 0;
  const char* fma_isa = "";
  const char* int8_isa = "";  // "" where the CPU has no int8 dot-product instruction
};

Peaks measured_peaks(int threads) {
  Peaks p;
  const auto& fma = focal_bench::machine_peak();
  p.fma_gflops = fma.fma_gflops * threads;
  p.fma_isa = fma.isa;
  const auto& int8 = focal_bench::int8_dot_peak();
  p.int8_gops = int8.gops * threads;
  p.int8_isa = int8.isa;
  return p;
}

// The int8 dot-product peak (when measured), and for models with int8-activation
// products their rate and its share of that peak.
void print_int8_compute(const Report& report, const Peaks& peaks) {
  const bool measured = peaks.fma_gflops > 0;
  if (report.int8_gops <= 0 && !measured) return;
  std::string peak = "no int8 dot-product instruction on this CPU";
  if (peaks.int8_gops > 0) {
    peak = "int8 dot-product peak " + std::to_string(int(peaks.int8_gops)) + " GOP/s (" + peaks.int8_isa + ")";
  }
  if (report.int8_gops <= 0) {
    std::printf("int8       %s; no int8-activation products in this model\n", peak.c_str());
    return;
  }
  std::printf("int8       %.1f GOP/s of int8-activation products", report.int8_gops);
  if (peaks.int8_gops > 0) {
    std::printf(", %d%% of the measured %s", int(100 * report.int8_gops / peaks.int8_gops + 0.5), peak.c_str());
  }
  std::printf("\n");
}

// A JSON value, or null where it was not measured (a reader must not take 0 for a figure).
template <typename T>
nlohmann::json measured_or_null(bool measured, const T& value) {
  return measured ? nlohmann::json(value) : nlohmann::json(nullptr);
}

uint64_t kv_cache_bytes(const Model& m) {
  uint64_t bytes = 0;
  for (int t = 0; t < m.tensor_count(); ++t) {
    if (m.tensor(t).role == TensorRole::kState) bytes += m.tensor(t).max_bytes;
  }
  return bytes;
}

// What a bench measured: the mode's figures, the time per op kind, memory and the peaks
// they are stated against.
struct Measurement {
  Report report;
  std::map<std::string, double> by_kind;  // ms per op kind, summed over every run
  double op_total = 0;                    // ms, all ops
  long rss_kib = 0;                       // peak RSS before the peaks were measured
  size_t arena_bytes = 0;
  Peaks peaks;                            // zero with --no-peak
};

// Opens a session over the model on o.threads threads and times it in the mode its
// stages and cache call for (seq2seq, decoder, or one forward run), each op observed.
Status measure(const Model& m, const Options& o, Measurement* out) {
  OwnedSession owned;
  FOCAL_RETURN_IF_ERROR(OwnedSession::open(m, SessionOptions(), o.threads, &owned));
  Session& s = owned.session();
  OpTimes times;
  times.ms.assign(size_t(m.op_count()), 0.0);
  s.set_op_observer(OpTimes::observe, &times);
  const Status status = s.find_stage("encode") >= 0 ? bench_seq2seq(s, o, &out->report)
                        : s.cache_capacity() > 0    ? bench_decoder(s, o, &out->report)
                                                    : bench_once(s, o, &out->report);
  if (!o.json && isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\n");
  FOCAL_RETURN_IF_ERROR(status);
  s.set_op_observer(nullptr, nullptr);
  // Read before the peaks are measured: their loops' buffers are the tool's, not the model's.
  out->rss_kib = peak_rss_kib();
  out->peaks = o.peak ? measured_peaks(o.threads) : Peaks();
  out->arena_bytes = owned.arena_bytes();
  for (double v : times.ms) out->op_total += v;
  for (int i = 0; i < m.op_count(); ++i) out->by_kind[m.op(i).kind] += times.ms[size_t(i)];
  return Status();
}

// The report as docs/bench.schema.json describes it.
nlohmann::json json_report(const Model& m, const Options& o, const Measurement& measured) {
  const Report& report = measured.report;
  const Peaks& peaks = measured.peaks;
  const double peak = peaks.fma_gflops;
  nlohmann::json j;
  j["schema"] = "focal-bench/1";
  j["focal_version"] = focal_version();
  j["model"] = {{"path", o.model}, {"architecture", m.architecture()}, {"parameters", m.parameter_count()},
                {"parameter_bytes", m.parameter_bytes()}};
  j["machine"] = {{"cpu", cpu_name()},       {"gemm_isa", gemm_isa()}, {"attention_isa", attention_isa()},
                  {"threads", o.threads},    {"fma_peak_gflops", measured_or_null(o.peak, peak)},
                  {"fma_peak_isa", measured_or_null(o.peak, peaks.fma_isa)}, {"gemm_int8_isa", gemm_int8_isa()},
                  {"int8_peak_gops", measured_or_null(o.peak, peaks.int8_gops)},
                  {"int8_peak_isa", measured_or_null(o.peak, peaks.int8_isa)}};
  j["mode"] = report.kind;
  j["settings"] = {{"seq", o.seq}, {"prompt", o.prompt}, {"gen", o.gen}, {"warmup", o.warmup}, {"repeat", o.repeat}};
  j["latency_ms"] = {{"p50", percentile(report.latencies_ms, 50)},
                     {"p90", percentile(report.latencies_ms, 90)},
                     {"p99", percentile(report.latencies_ms, 99)},
                     {"samples", report.latencies_ms.size()}};
  // null where this mode measures nothing: a forward run has no decode, a translation no
  // separate prefill and no counted matrix work.
  const bool decoder = report.kind == "decoder", seq2seq = report.kind == "seq2seq";
  j["time_to_first_token_ms"] = measured_or_null(decoder, report.ttft_ms);
  j["prefill_tokens_per_s"] = measured_or_null(!seq2seq, report.prefill_tokens_per_s);
  j["decode_tokens_per_s"] = measured_or_null(decoder || seq2seq, report.decode_tokens_per_s);
  j["gflops"] = measured_or_null(!seq2seq, report.gflops);
  j["peak_fraction"] = measured_or_null(!seq2seq && peak > 0, peak > 0 ? report.gflops / peak : 0.0);
  j["int8_gops"] = measured_or_null(!seq2seq, report.int8_gops);
  j["int8_peak_fraction"] =
      measured_or_null(!seq2seq && peaks.int8_gops > 0, peaks.int8_gops > 0 ? report.int8_gops / peaks.int8_gops : 0.0);
  j["memory"] = {{"arena_bytes", measured.arena_bytes}, {"kv_cache_bytes", kv_cache_bytes(m)},
                 {"peak_rss_bytes", uint64_t(measured.rss_kib) * 1024}};
  j["ops"] = nlohmann::json::array();
  for (const auto& [kind, ms] : measured.by_kind) {
    j["ops"].push_back({{"kind", kind}, {"ms", ms}, {"share", measured.op_total > 0 ? ms / measured.op_total : 0.0}});
  }
  return j;
}

// The report as text, for a person.
void print_report(const Model& m, const Options& o, const Measurement& measured) {
  const Report& report = measured.report;
  const double peak = measured.peaks.fma_gflops;
  std::printf("model      %s (%s, %llu parameters)\n", printable(o.model).c_str(), printable(m.architecture()).c_str(),
              (unsigned long long)m.parameter_count());
  std::printf("machine    %s; gemm %s, int8 gemm %s, attention %s; %d thread(s)\n", cpu_name().c_str(), gemm_isa(),
              gemm_int8_isa(), attention_isa(), o.threads);
  std::printf("mode       %s\n", report.kind.c_str());
  std::printf("latency    p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  (%zu samples%s)\n",
              percentile(report.latencies_ms, 50), percentile(report.latencies_ms, 90),
              percentile(report.latencies_ms, 99), report.latencies_ms.size(),
              report.kind == "decoder" ? ", per decode step" : "");
  if (report.kind == "decoder") {
    std::printf("tokens/s   prefill %.1f, decode %.1f; time to first token %.3f ms\n", report.prefill_tokens_per_s,
                report.decode_tokens_per_s, report.ttft_ms);
  } else if (report.kind == "seq2seq") {
    std::printf("tokens/s   decode %.1f (whole sentences)\n", report.decode_tokens_per_s);
  } else {
    std::printf("tokens/s   %.1f\n", report.prefill_tokens_per_s);
  }
  if (report.gflops > 0) {
    std::printf("compute    %.1f GFLOP/s of matrix work%s\n", report.gflops,
                peak > 0 ? (", " + std::to_string(int(100 * report.gflops / peak + 0.5)) + "% of the measured FMA peak (" +
                            std::to_string(int(peak)) + " GFLOP/s, " + measured.peaks.fma_isa + ")").c_str()
                         : "");
  }
  print_int8_compute(report, measured.peaks);
  std::printf("memory     arena %zu bytes, KV cache / states %llu bytes, peak RSS %ld KiB\n", measured.arena_bytes,
              (unsigned long long)kv_cache_bytes(m), measured.rss_kib);
  std::printf("\n%-20s %12s %8s\n", "op kind", "ms (total)", "share");
  for (const auto& [kind, ms] : measured.by_kind) {
    std::printf("%-20s %12.3f %7.1f%%\n", kind.c_str(), ms, measured.op_total > 0 ? 100 * ms / measured.op_total : 0.0);
  }
}

}  // namespace

int bench_command(int argc, char** argv) {
  Options o;
  const auto loaded = start_command("bench", argc, argv, kUsage, parse, &o);
  if (!loaded) return loaded.exit_code();
  Measurement measured;
  const Status status = measure(loaded->model, o, &measured);
  if (!status.ok()) return report_failure("bench", status);
  if (!o.plot.empty()) {
    Status plotted = check_output_is_not_an_input(o.plot, {o.model});
    if (plotted.ok()) plotted = write_op_time_plot(o.plot, o.model, measured.by_kind, measured.op_total);
    if (!plotted.ok()) return report_failure("bench", plotted);
  }
  if (o.json) {
    const nlohmann::json j = json_report(loaded->model, o, measured);
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
  }
  print_report(loaded->model, o, measured);
  return 0;
}

}  // namespace cli
}  // namespace focal
