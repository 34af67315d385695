// Resource budgets of the checkpoint readers: how many bytes one file may make the
// converter allocate. A small hostile file must not expand into gigabytes (shared
// pickle references, views that repeat a storage, zip bombs), so every reader charges
// what it materializes against a budget derived from the file's own size, with an
// absolute cap, and an error names the budget that was exceeded.
#pragma once

#include <cstdint>
#include <string>

#include "focal/status.h"

namespace focal {
namespace convert {

// Tensor bytes a checkpoint may yield: 4x the file's size (a storage shared by a few
// tied weights is copied once per tensor) plus 16 MiB for small files.
constexpr uint64_t kMaterializeFactor = 4;
// Bytes the members of a zip archive may inflate to, together: 64x the archive's size
// plus 16 MiB. torch.save stores members uncompressed (ratio 1); np.savez_compressed of
// trained float weights gains about 1.1x, and only zero-filled tensors compress further.
constexpr uint64_t kInflateFactor = 64;
constexpr uint64_t kBudgetSlackBytes = uint64_t(16) << 20;
// No reader ever materializes more than this, however large the file: 1 TiB on 64-bit
// hosts, half the address space (2 GiB) on 32-bit ones.
uint64_t max_materialized_bytes();

class ReadBudget {
 public:
  // `name` says what is bounded ("tensor bytes", "inflated zip members"), in errors.
  ReadBudget(std::string name, uint64_t file_bytes, uint64_t factor);
  // Takes `bytes` from the budget, or refuses, naming the budget, the file and `what`.
  Status charge(const std::string& path, const std::string& what, uint64_t bytes);
  uint64_t limit() const { return limit_; }
  uint64_t used() const { return used_; }

 private:
  std::string name_;
  uint64_t file_bytes_, factor_, limit_, used_ = 0;
};

}  // namespace convert
}  // namespace focal
