// What `--fit` tried and chose (fit.h): one row per choice with its sizes, its measured
// error and whether it fits the part; the CLI prints it as a table, --json and Python's
// Conversion.fit give it as JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fit/fit_budget.h"

namespace focal {
namespace convert {

struct FitChoice {
  std::string name;         // "static int8", ...
  std::string options;      // the `focal convert` options it stands for
  std::string unavailable;  // the converter's refusal for this model; empty: converted
  uint64_t model_bytes = 0;
  uint64_t arena_bytes = 0;
  uint64_t ram = 0;    // arena + stack + data (fit_budget.h)
  uint64_t flash = 0;  // model + engine + app
  double error = 0.0;  // the largest |output - expected| over the measured cases
  bool fits = false;
  bool chosen = false;
};

struct FitReport {
  FitBudget budget;
  std::vector<FitChoice> choices;  // in the order tried
  std::string measured_on;         // "1 self-test case and 3 calibration cases"
};

// The choice over the part that misses it by the least (the largest share over RAM or
// flash); null when every choice was unavailable.
const FitChoice* nearest_miss(const FitReport& report);
// "RAM 77,312 B, 11,776 over 65,536; flash ..." for a choice against the part.
std::string describe_need(const FitChoice& choice, const FitBudget& budget);

std::string fit_table(const FitReport& report);
nlohmann::json fit_json(const FitReport& report);

}  // namespace convert
}  // namespace focal
