// What `--fit` tried and chose (fit_report.h).
#include "fit/fit_report.h"

#include <algorithm>
#include <cstdio>

namespace focal {
namespace convert {
namespace {

// 77312 -> "77,312".
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), text;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
    text += digits[i];
  }
  return text;
}

// How far over the part a need is, as a share of it (0 when within).
double over_share(uint64_t need, uint64_t have) {
  return need > have ? static_cast<double>(need - have) / static_cast<double>(have) : 0.0;
}

std::string one_need(const char* what, uint64_t need, uint64_t have) {
  std::string text = std::string(what) + " " + grouped(need) + " B of " + grouped(have);
  if (need > have) text += " (" + grouped(need - have) + " over)";
  return text;
}

std::string verdict(const FitChoice& c, const FitBudget& budget) {
  if (!c.unavailable.empty()) return "not available";
  if (c.fits) return c.chosen ? "fits, chosen" : "fits";
  std::string text;
  if (c.ram > budget.ram) text += "RAM +" + grouped(c.ram - budget.ram);
  if (c.flash > budget.flash) text += std::string(text.empty() ? "" : ", ") + "flash +" + grouped(c.flash - budget.flash);
  return text;
}

}  // namespace

const FitChoice* nearest_miss(const FitReport& report) {
  const FitChoice* nearest = nullptr;
  double least = 0.0;
  for (const FitChoice& c : report.choices) {
    if (!c.unavailable.empty()) continue;
    const double share = std::max(over_share(c.ram, report.budget.ram), over_share(c.flash, report.budget.flash));
    if (nearest == nullptr || share < least) nearest = &c, least = share;
  }
  return nearest;
}

std::string describe_need(const FitChoice& c, const FitBudget& budget) {
  return one_need("RAM", c.ram, budget.ram) + " (arena " + grouped(c.arena_bytes) + " + stack " +
         grouped(budget.stack) + " + data " + grouped(budget.data) + "), " + one_need("flash", c.flash, budget.flash) +
         " (model " + grouped(c.model_bytes) + " + engine " + grouped(budget.engine) + " + app " +
         grouped(budget.app) + ")";
}

std::string fit_table(const FitReport& report) {
  const FitBudget& b = report.budget;
  std::string text = "fit: a part with " + grouped(b.ram) + " B of RAM and " + grouped(b.flash) +
                     " B of flash; RAM = arena + stack " + grouped(b.stack) + " + data " + grouped(b.data) +
                     ", flash = model + engine " + grouped(b.engine) + " + app " + grouped(b.app) +
                     "; error = largest |output - expected| on " + report.measured_on + "\n";
  char line[256];
  (void)std::snprintf(line, sizeof(line), "  %-26s %11s %9s %9s %11s %10s  %s\n", "choice", "model B", "arena B",
                      "RAM B", "flash B", "error", "verdict");
  text += line;
  for (const FitChoice& c : report.choices) {
    if (!c.unavailable.empty()) {
      (void)std::snprintf(line, sizeof(line), "  %-26s %s: %s\n", c.name.c_str(), "not available", c.unavailable.c_str());
    } else {
      (void)std::snprintf(line, sizeof(line), "  %-26s %11s %9s %9s %11s %10.4g  %s\n", c.name.c_str(),
                          grouped(c.model_bytes).c_str(), grouped(c.arena_bytes).c_str(), grouped(c.ram).c_str(),
                          grouped(c.flash).c_str(), c.error, verdict(c, b).c_str());
    }
    text += line;
  }
  return text;
}

nlohmann::json fit_json(const FitReport& report) {
  const FitBudget& b = report.budget;
  nlohmann::json choices = nlohmann::json::array();
  for (const FitChoice& c : report.choices) {
    nlohmann::json row = {{"choice", c.name}, {"options", c.options}};
    if (!c.unavailable.empty()) {
      row["unavailable"] = c.unavailable;
    } else {
      row.update({{"model_bytes", c.model_bytes}, {"arena_bytes", c.arena_bytes}, {"ram_bytes", c.ram},
                  {"flash_bytes", c.flash}, {"error", c.error}, {"fits", c.fits}, {"chosen", c.chosen}});
    }
    choices.push_back(std::move(row));
  }
  return {{"part", {{"ram", b.ram}, {"flash", b.flash}}},
          {"reserved", {{"stack", b.stack}, {"data", b.data}, {"engine", b.engine}, {"app", b.app}}},
          {"int4", b.int4},
          {"measured_on", report.measured_on},
          {"choices", std::move(choices)}};
}

}  // namespace convert
}  // namespace focal
