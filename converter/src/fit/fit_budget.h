// `focal convert --fit ram=64K,flash=256K` (issue 36): the part a model must fit, as the
// converter counts it.
//
//   RAM need   = arena + stack + data
//   flash need = model file + engine + app
//
// The arena (activations, recurrent states, KV caches and the largest op workspace, as
// `focal plan` writes NAME_arena_bytes) and the model file are the converter's own exact
// figures. The others are the firmware's, which the converter cannot see; they default
// to what the example firmware (targets/cortex-m/examples/classify) reserves or is held
// to, and a firmware's `<name>_size` test prints its own to pass instead:
//   stack  8K   the example's stack reservation (its peak is 5.7 KB with static int8)
//   data   1K   static RAM beside the arena (the example's: 584 B)
//   engine 64K  engine code, the budget the classifier firmwares hold to on every core
//   app    16K  startup, C library and application code
//   int4   no   int4 weights are a choice only when the firmware's engine is built with
//               FOCAL_INT4_WEIGHTS=ON (off on bare metal by default)
// Sizes are bytes, or a number with K (KiB) or M (MiB).
#pragma once

#include <cstdint>
#include <string>

#include "focal/status.h"

namespace focal {
namespace convert {

struct FitBudget {
  uint64_t ram = 0;    // bytes of RAM on the part
  uint64_t flash = 0;  // bytes of flash on the part
  uint64_t stack = uint64_t{8} * 1024;
  uint64_t data = 1024;
  uint64_t engine = uint64_t{64} * 1024;
  uint64_t app = uint64_t{16} * 1024;
  bool int4 = false;
};

// Parses "ram=64K,flash=256K[,stack=N][,data=N][,engine=N][,app=N][,int4=yes|no]"; ram and
// flash are required. Errors name the part of the text at fault.
Result<FitBudget> parse_fit_budget(const std::string& text);

// "ram=65536,flash=262144,stack=8192,data=1024,engine=65536,app=16384", every key spelled.
std::string describe(const FitBudget& budget);

}  // namespace convert
}  // namespace focal
