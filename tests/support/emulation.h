// Whether these tests run under qemu-user (the aarch64 and armhf presets). qemu 7.2 on
// this project's CI kernel cannot start threads (pthread_create hangs under qemu-aarch64
// and crashes under qemu-arm, even for a five-line program), so tests that start
// threads are skipped there; they run natively and under the sanitizers.
#pragma once

namespace focal {
namespace testing {

#if defined(FOCAL_TESTS_UNDER_EMULATION)
constexpr bool kUnderEmulation = true;
#else
constexpr bool kUnderEmulation = false;
#endif

}  // namespace testing
}  // namespace focal
