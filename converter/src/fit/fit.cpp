// --fit: the most accurate conversion that fits the part (fit.h).
#include "fit/fit.h"

#include <cstdio>

#include "assign_or_return.h"
#include "convert_self_test.h"
#include "engine_run.h"
#include "fit/fit_layers.h"
#include "fit/fit_measure.h"
#include "fit/fit_report.h"

namespace focal {
namespace convert {
namespace {

struct Candidate {
  const char* name;
  const char* options;
  DType dense;
  DType table;
  bool quantize_static;
};

constexpr Candidate kCandidates[] = {
    {"f32", "--dtype f32", DType::kF32, DType::kF32, false},
    {"int8 weights", "--dtype int8", DType::kI8, DType::kF32, false},
    {"int8 weights and table", "--dtype int8 --embedding-dtype int8", DType::kI8, DType::kI8, false},
    {"int4 weights, int8 table", "--dtype int4 --embedding-dtype int8", DType::kI4, DType::kI8, false},
    {"static int8", "--quantize static", DType::kF32, DType::kF32, true},
};

bool is_int4(const Candidate& c) { return c.dense == DType::kI4; }
// Dense weights quantized, activations f32: the choices a layer can leave for f32.
bool weight_only(const Candidate& c) { return !c.quantize_static && c.dense != DType::kF32; }

Status check_fit_options(const ConvertOptions& o) {
  if (o.dtype != DType::kF32 || o.embedding_dtype != DType::kF32 || o.int8_activations || o.quantize_static ||
      !o.keep_f32.empty() || o.group_size != 0 || !o.float_weights.empty()) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--fit chooses the weight and activation types itself: give it without --dtype, "
                         "--embedding-dtype, --group-size, --activations, --keep-f32 and --quantize");
  }
  if (!o.self_test) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--fit measures each choice's error on the self-test: give it without --no-self-test");
  }
  return Status();
}

ConvertOptions candidate_options(const ConvertOptions& given, const Candidate& c) {
  ConvertOptions o = given;
  o.fit.clear();
  o.progress = nullptr;  // one line per choice instead (report_choice)
  o.dtype = c.dense;
  o.embedding_dtype = c.table;
  o.quantize_static = c.quantize_static;
  if (!c.quantize_static) o.calibration_dir.clear();  // calibrates static int8 only (the error cases take it too)
  return o;
}

void report_choice(const ConvertOptions& options, const FitChoice& c, const FitBudget& budget) {
  if (!c.unavailable.empty()) {
    report(options, "fit: " + c.name + ": not available for this model: " + c.unavailable);
    return;
  }
  char error[32];
  (void)std::snprintf(error, sizeof(error), "%.4g", c.error);
  report(options, "fit: " + c.name + ": error " + error + ", " + describe_need(c, budget));
}

// Between two choices that fit: less error, else less RAM.
bool better(const FitChoice& a, const FitChoice& b) {
  if (a.error != b.error) return a.error < b.error;
  return a.ram < b.ram;
}

Status nothing_fits(const FitReport& report) {
  const FitChoice* nearest = nearest_miss(report);
  if (nearest == nullptr) {
    return Status::error(StatusCode::kUnsupported, "--fit: no choice converts this model (%s)",
                         report.choices.front().unavailable.c_str());
  }
  return Status::error(StatusCode::kResourceExhausted, "--fit: no choice fits the part; the nearest is %s: %s",
                       nearest->name.c_str(), describe_need(*nearest, report.budget).c_str());
}

// The most accurate choice that fits so far.
struct Best {
  Converted converted;
  int index = -1;  // in FitReport::choices; -1: none fits yet
  const Candidate* candidate = nullptr;
};

FitChoice named(const Candidate& c) {
  FitChoice choice;
  choice.name = c.name;
  choice.options = c.options;
  return choice;
}

// Reports a measured choice and adds it to the table; it becomes `best` if it fits and
// beats it.
void consider(const ConvertOptions& options, FitChoice choice, Converted converted, const Candidate& candidate,
              FitReport* table, Best* best) {
  report_choice(options, choice, table->budget);
  if (choice.fits && (best->index < 0 || better(choice, table->choices[static_cast<size_t>(best->index)]))) {
    best->index = static_cast<int>(table->choices.size());
    best->converted = std::move(converted);
    best->candidate = &candidate;
  }
  table->choices.push_back(std::move(choice));
}

// The whole-model choices after f32 (converted already: the cases name its tensors).
Status try_candidates(const ConvertOptions& options, const FitMeasure& measure, FitReport* table, Best* best) {
  for (const Candidate& candidate : kCandidates) {
    if (&candidate == &kCandidates[0] || (is_int4(candidate) && !measure.budget.int4)) continue;
    FitChoice choice = named(candidate);
    Converted converted;
    FOCAL_RETURN_IF_ERROR(convert_and_measure(candidate_options(options, candidate), measure, &choice, &converted));
    consider(options, std::move(choice), std::move(converted), candidate, table, best);
  }
  return Status();
}

}  // namespace

Result<Converted> convert_to_fit(const ConvertOptions& options) {
  FOCAL_ASSIGN_OR_RETURN(const FitBudget budget, parse_fit_budget(options.fit));
  FOCAL_RETURN_IF_ERROR(check_fit_options(options));
  report(options, "fit: converting in each choice to measure it (" + describe(budget) + ")");
  FitReport table;
  table.budget = budget;
  FOCAL_ASSIGN_OR_RETURN(Converted f32_converted, convert_checkpoint(candidate_options(options, kCandidates[0])));
  EngineRun f32_run;  // the f32 model: the cases' inputs and expected outputs name its tensors
  FOCAL_RETURN_IF_ERROR(start_engine(f32_converted.bytes, f32_run));
  FOCAL_ASSIGN_OR_RETURN(const std::vector<ErrorCase> cases, error_cases(options, *f32_run.model, &table.measured_on));
  const FitMeasure measure{*f32_run.model, cases, budget};
  FitChoice f32_choice = named(kCandidates[0]);
  FOCAL_RETURN_IF_ERROR(measure_converted(f32_converted, measure, &f32_choice));
  Best best;
  consider(options, std::move(f32_choice), std::move(f32_converted), kCandidates[0], &table, &best);
  FOCAL_RETURN_IF_ERROR(try_candidates(options, measure, &table, &best));
  if (best.index < 0) return nothing_fits(table);
  if (weight_only(*best.candidate)) {
    FOCAL_ASSIGN_OR_RETURN(LayerMix mix, mix_layers(candidate_options(options, *best.candidate),
                                                    table.choices[static_cast<size_t>(best.index)],
                                                    best.converted.bytes, measure, options));
    if (!mix.f32_weights.empty()) {
      report_choice(options, mix.choice, budget);
      best.index = static_cast<int>(table.choices.size());
      best.converted = std::move(mix.converted);
      table.choices.push_back(std::move(mix.choice));
    }
  }
  FitChoice& chosen = table.choices[static_cast<size_t>(best.index)];
  chosen.chosen = true;
  report(options, "fit: chose " + chosen.name + " (" + chosen.options + "): " + describe_need(chosen, budget));
  best.converted.fit = std::move(table);
  return std::move(best.converted);
}

}  // namespace convert
}  // namespace focal
