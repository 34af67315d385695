// The part a model must fit (fit_budget.h).
#include "fit/fit_budget.h"

#include <cctype>
#include <sstream>

namespace focal {
namespace convert {
namespace {

constexpr uint64_t kLargestSize = uint64_t{1} << 40;  // 1 TiB: no part is larger

Status bad_item(const std::string& item, const char* why) {
  return Status::error(StatusCode::kInvalidArgument, "--fit '%s': %s", item.c_str(), why);
}

// "65536", "64K", "256K", "1M" -> bytes.
Status parse_size(const std::string& item, const std::string& text, uint64_t* bytes) {
  size_t digits = 0;
  uint64_t value = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    value = value * 10 + static_cast<uint64_t>(text[digits] - '0');
    if (value > kLargestSize) return bad_item(item, "larger than 1 TiB");
    ++digits;
  }
  if (digits == 0) return bad_item(item, "a size is bytes, or a number with K (KiB) or M (MiB)");
  const std::string unit = text.substr(digits);
  uint64_t scale = 1;
  if (unit == "K" || unit == "k" || unit == "KiB") scale = 1024;
  else if (unit == "M" || unit == "MiB") scale = uint64_t{1024} * 1024;
  else if (!unit.empty()) return bad_item(item, "a size is bytes, or a number with K (KiB) or M (MiB)");
  if (value * scale > kLargestSize) return bad_item(item, "larger than 1 TiB");
  *bytes = value * scale;
  return Status();
}

Status parse_item(const std::string& item, FitBudget* budget, bool* has_ram, bool* has_flash) {
  const size_t equals = item.find('=');
  if (equals == std::string::npos) return bad_item(item, "expected KEY=VALUE");
  const std::string key = item.substr(0, equals), value = item.substr(equals + 1);
  if (key == "int4") {
    if (value != "yes" && value != "no") return bad_item(item, "int4 is yes or no");
    budget->int4 = value == "yes";
    return Status();
  }
  uint64_t* const fields[] = {&budget->ram, &budget->flash, &budget->stack, &budget->data, &budget->engine, &budget->app};
  const char* const names[] = {"ram", "flash", "stack", "data", "engine", "app"};
  for (size_t i = 0; i < 6; ++i) {
    if (key != names[i]) continue;
    if (i == 0) *has_ram = true;
    if (i == 1) *has_flash = true;
    return parse_size(item, value, fields[i]);
  }
  return bad_item(item, "unknown key (ram, flash, stack, data, engine, app, int4)");
}

}  // namespace

Result<FitBudget> parse_fit_budget(const std::string& text) {
  FitBudget budget;
  bool has_ram = false, has_flash = false;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) FOCAL_RETURN_IF_ERROR(parse_item(item, &budget, &has_ram, &has_flash));
  if (!has_ram || !has_flash || budget.ram == 0 || budget.flash == 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--fit needs the part's RAM and flash, e.g. --fit ram=64K,flash=256K");
  }
  return budget;
}

std::string describe(const FitBudget& budget) {
  return "ram=" + std::to_string(budget.ram) + ",flash=" + std::to_string(budget.flash) +
         ",stack=" + std::to_string(budget.stack) + ",data=" + std::to_string(budget.data) +
         ",engine=" + std::to_string(budget.engine) + ",app=" + std::to_string(budget.app) +
         ",int4=" + (budget.int4 ? "yes" : "no");
}

}  // namespace convert
}  // namespace focal
