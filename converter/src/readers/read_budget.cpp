#include "readers/read_budget.h"

#include <cstddef>
#include <limits>

#include "readers/checked_math.h"
#include "readers/checkpoint.h"

namespace focal {
namespace convert {

uint64_t max_materialized_bytes() {
  constexpr uint64_t kOneTiB = uint64_t(1) << 40;
  const uint64_t half_address_space = static_cast<uint64_t>(std::numeric_limits<size_t>::max() / 2);
  return half_address_space < kOneTiB ? half_address_space : kOneTiB;
}

ReadBudget::ReadBudget(std::string name, uint64_t file_bytes, uint64_t factor)
    : name_(std::move(name)), file_bytes_(file_bytes), factor_(factor) {
  uint64_t scaled = 0, limit = 0;
  if (!checked_mul(file_bytes, factor, &scaled) || !checked_add(scaled, kBudgetSlackBytes, &limit)) {
    limit = std::numeric_limits<uint64_t>::max();
  }
  limit_ = limit < max_materialized_bytes() ? limit : max_materialized_bytes();
}

Status ReadBudget::charge(const std::string& path, const std::string& what, uint64_t bytes) {
  uint64_t total = 0;
  if (checked_add(used_, bytes, &total) && total <= limit_) {
    used_ = total;
    return Status();
  }
  return reader_error(path, what + " needs " + std::to_string(bytes) + " bytes, over the budget for " + name_ +
                                " (" + std::to_string(factor_) + "x the file's " + std::to_string(file_bytes_) +
                                " bytes plus 16 MiB, at most " + std::to_string(max_materialized_bytes()) +
                                "): " + std::to_string(used_) + " of " + std::to_string(limit_) +
                                " bytes already used");
}

}  // namespace convert
}  // namespace focal
