// Vector table, reset handler and fault reporting for the Cortex-M firmwares.
// Memory layout symbols (__data_*, __bss_*, __stack_*) come from ld/sections.ld.
#include <cstdint>
#include <cstdlib>
#include <initializer_list>

#include "semihosting.h"

extern "C" {
extern std::uint32_t __data_start__[], __data_end__[], __data_load__[];
extern std::uint32_t __bss_start__[], __bss_end__[];
extern char __stack_top__[], __stack_limit__[];
void __libc_init_array();
[[noreturn]] void Reset_Handler();
void Fault_Handler();
void SysTick_Handler();  // cycle_counter.cpp: counts SysTick wraps
void focal_paint_stack();  // memory_usage.cpp: for measuring the stack's peak
[[noreturn]] void focal_fault_report(const std::uint32_t* frame, std::uint32_t exc_return);
}
// The application's main, called under another name: C++ forbids calling ::main.
extern "C" int focal_app_main(int argc, char** argv) __asm__("main");

namespace {

volatile std::uint32_t& reg(std::uintptr_t address) {
  return *reinterpret_cast<volatile std::uint32_t*>(address);
}
constexpr std::uintptr_t kVtor = 0xE000ED08, kCpacr = 0xE000ED88;
constexpr std::uintptr_t kCfsr = 0xE000ED28, kHfsr = 0xE000ED2C;
constexpr std::uintptr_t kMmfar = 0xE000ED34, kBfar = 0xE000ED38;

using Handler = void (*)();
constexpr int kExternalIrqs = 96;  // mps3-an547 uses up to IRQ 95; mps2 boards fewer
struct VectorTable {
  void* initial_sp;
  Handler system[15];  // Reset, NMI, HardFault, ..., SysTick
  Handler irq[kExternalIrqs];
};

constexpr VectorTable make_vector_table() {
  VectorTable t{};
  t.initial_sp = __stack_top__;
  t.system[0] = Reset_Handler;
  // SysTick may time inference (cycle_counter.h). Every other exception and interrupt is
  // unexpected here: report it and exit non-zero, so a test fails instead of hanging.
  // Reserved vectors stay 0.
  for (int i : {1, 2, 3, 4, 5, 6, 10, 11, 13}) t.system[i] = Fault_Handler;
  t.system[14] = SysTick_Handler;
  for (Handler& h : t.irq) h = Fault_Handler;
  return t;
}

// constexpr: a compile error rather than a silently runtime-initialised (empty) table.
// KEEP(*(.isr_vector)) in the linker script puts it at the board's reset vector address.
[[gnu::used, gnu::section(".isr_vector")]] constexpr VectorTable vector_table = make_vector_table();

void write_hex(const char* label, std::uint32_t value) {
  char text[48];
  char* p = text;
  while (*label) *p++ = *label++;
  *p++ = '0';
  *p++ = 'x';
  for (int shift = 28; shift >= 0; shift -= 4) *p++ = "0123456789abcdef"[(value >> shift) & 0xF];
  *p = '\0';
  focal::semihosting::write0(text);
}

}  // namespace

extern "C" [[noreturn]] void Reset_Handler() {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  // Full access to CP10/CP11 (FPU, and MVE on M55) before anything else: the copy loops
  // below may already be vectorised or turned into memcpy/memset using FP registers.
  reg(kCpacr) |= 0xFu << 20;
  asm volatile("dsb\n\tisb" ::: "memory");
#endif
#if __ARM_ARCH >= 8
  // Armv8-M stack limit: an overflow faults (UsageFault STKOF) instead of eating .bss.
  asm volatile("msr msplim, %0" ::"r"(__stack_limit__));
#endif
  // The AN547 boots through its secure alias; point VTOR at the table wherever it is.
  reg(kVtor) = reinterpret_cast<std::uintptr_t>(&vector_table);

  for (std::uint32_t *src = __data_load__, *dst = __data_start__; dst < __data_end__;) *dst++ = *src++;
  for (std::uint32_t* dst = __bss_start__; dst < __bss_end__;) *dst++ = 0;
  focal_paint_stack();
  __libc_init_array();  // static constructors (.preinit_array, .init_array)

  char* argv[] = {nullptr};
  // exit(): atexit handlers, static destructors, stdio flush, then _exit -> semihosting.
  std::exit(focal_app_main(0, argv));
}

// Shared entry of all unexpected exceptions. Naked: it must read LR (EXC_RETURN) and the
// stack pointer before any compiler prologue changes them.
extern "C" [[gnu::naked]] void Fault_Handler() {
  asm volatile(
#if __ARM_ARCH >= 8
      // Lift the stack limit first: after a stack overflow the report itself needs stack.
      "movs r2, #0\n\t"
      "msr msplim, r2\n\t"
#endif
      "tst lr, #4\n\t"  // EXC_RETURN bit 2: which stack holds the exception frame
      "ite eq\n\t"
      "mrseq r0, msp\n\t"
      "mrsne r0, psp\n\t"
      "mov r1, lr\n\t"
      "b focal_fault_report\n\t");
}

extern "C" [[noreturn]] void focal_fault_report(const std::uint32_t* frame, std::uint32_t exc_return) {
  std::uint32_t ipsr;
  asm volatile("mrs %0, ipsr" : "=r"(ipsr));
  static const char* const names[] = {"?",        "Reset",       "NMI",        "HardFault",
                                      "MemManage", "BusFault",   "UsageFault", "SecureFault",
                                      "?",         "?",          "?",          "SVCall",
                                      "DebugMonitor", "?",       "PendSV",     "SysTick"};
  focal::semihosting::write0("\n*** focal firmware: unexpected exception ");
  focal::semihosting::write0(ipsr < 16 ? names[ipsr] : "IRQ");
  write_hex(" (exception ", ipsr);
  // frame[] as pushed by the core: r0 r1 r2 r3 r12 lr pc xpsr. With a stack overflow
  // (v8-M STKOF) nothing was pushed and these are stale, but reading them is harmless.
  write_hex(")\n    pc  ", frame[6]);
  write_hex("  lr  ", frame[5]);
  write_hex("  exc_return ", exc_return);
  write_hex("\n    CFSR ", reg(kCfsr));
  write_hex("  HFSR ", reg(kHfsr));
  write_hex("  MMFAR ", reg(kMmfar));
  write_hex("  BFAR ", reg(kBfar));
  focal::semihosting::write0("\n");
  // 128 + exception number, like a shell's 128 + signal: 131 for HardFault.
  focal::semihosting::exit(128 + static_cast<int>(ipsr & 0x7F));
}
