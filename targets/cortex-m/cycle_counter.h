// Core clock cycles for timing inference on the device. Real M4, M7 and M55 parts count
// them in the DWT cycle counter (CYCCNT); qemu's boards do not model the DWT (its
// registers read as zero), so where CYCCNT does not advance the count comes from
// SysTick on the processor clock instead, its 24-bit down-counter extended by an
// interrupt per wrap. On hardware both give cycles; under qemu SysTick runs on qemu's
// virtual clock (with -icount shift=0 one instruction takes 1 ns, so a "cycle" is 40
// instructions at the MPS2's 25 MHz, 31.25 at the AN547's 32 MHz): a repeatable
// measure, not a cycle model.
#pragma once
#include <cstdint>

namespace focal::cortex_m {

enum class CycleSource { kDwt, kSysTick };

// Starts the counter at zero and says which one runs. Uses SysTick's interrupt when
// SysTick is the source, so a firmware that owns SysTick should not call it.
CycleSource start_cycle_counter();

// Cycles since start_cycle_counter(). DWT: 32 bits, so intervals must stay under 2^32
// cycles (about 20 s at 200 MHz); SysTick: 64 bits.
std::uint64_t cycle_count();

const char* cycle_source_name(CycleSource source);  // "DWT CYCCNT", "SysTick"

}  // namespace focal::cortex_m
