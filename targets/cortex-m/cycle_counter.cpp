// DWT and SysTick registers: Armv7-M/Armv8-M Architecture Reference Manual, C1.8 (DWT),
// B3.3 (SysTick). See cycle_counter.h for why there are two sources.
#include "cycle_counter.h"

namespace focal::cortex_m {
namespace {

volatile std::uint32_t& reg(std::uintptr_t address) {
  return *reinterpret_cast<volatile std::uint32_t*>(address);
}
constexpr std::uintptr_t kDemcr = 0xE000EDFC;    // Debug Exception and Monitor Control
constexpr std::uint32_t kDemcrTrcena = 1u << 24;  // enables the DWT
constexpr std::uintptr_t kDwtCtrl = 0xE0001000, kDwtCyccnt = 0xE0001004;
constexpr std::uintptr_t kDwtLar = 0xE0001FB0;   // lock access (Cortex-M7)
constexpr std::uint32_t kDwtUnlock = 0xC5ACCE55;
constexpr std::uint32_t kDwtCtrlCyccntena = 1u, kDwtCtrlNocyccnt = 1u << 25;
constexpr std::uintptr_t kSystCsr = 0xE000E010, kSystRvr = 0xE000E014, kSystCvr = 0xE000E018;
constexpr std::uint32_t kSystEnable = 1u, kSystTickint = 1u << 1, kSystClksourceCpu = 1u << 2;
constexpr std::uint32_t kSystPeriod = 1u << 24;  // the reload value 0xFFFFFF, plus one

CycleSource g_source = CycleSource::kSysTick;
volatile std::uint32_t g_systick_wraps = 0;

// Enables CYCCNT and reports whether it runs: it must advance over a few hundred cycles.
bool start_dwt() {
  reg(kDemcr) |= kDemcrTrcena;
  reg(kDwtLar) = kDwtUnlock;
  if (reg(kDwtCtrl) & kDwtCtrlNocyccnt) return false;
  reg(kDwtCyccnt) = 0;
  reg(kDwtCtrl) |= kDwtCtrlCyccntena;
  for (volatile int spin = 0; spin < 100; spin = spin + 1) {
  }
  return reg(kDwtCyccnt) != 0;
}

void start_systick() {
  reg(kSystCsr) = 0;
  g_systick_wraps = 0;
  reg(kSystRvr) = kSystPeriod - 1;
  reg(kSystCvr) = 0;  // any write clears it; it reloads on the next clock
  reg(kSystCsr) = kSystEnable | kSystTickint | kSystClksourceCpu;
}

}  // namespace

CycleSource start_cycle_counter() {
  g_source = start_dwt() ? CycleSource::kDwt : CycleSource::kSysTick;
  if (g_source == CycleSource::kSysTick) start_systick();
  return g_source;
}

std::uint64_t cycle_count() {
  if (g_source == CycleSource::kDwt) return reg(kDwtCyccnt);
  // Wraps and the counter must belong together: read the wraps again after the counter
  // and retry if the interrupt came in between.
  for (;;) {
    const std::uint32_t wraps = g_systick_wraps;
    const std::uint32_t down = reg(kSystCvr);
    if (wraps != g_systick_wraps) continue;
    return std::uint64_t(wraps) * kSystPeriod + (kSystPeriod - 1 - down);
  }
}

const char* cycle_source_name(CycleSource source) {
  return source == CycleSource::kDwt ? "DWT CYCCNT" : "SysTick";
}

}  // namespace focal::cortex_m

// The vector table's SysTick entry (startup.cpp).
extern "C" void SysTick_Handler() { focal::cortex_m::g_systick_wraps = focal::cortex_m::g_systick_wraps + 1; }
