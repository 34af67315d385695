// printf-style formatting of status messages that gives the same text with every C
// library. newlib-nano, the usual libc of Cortex-M firmware, has no %zu, %lld or %llu:
// it prints "zu" and then reads the following arguments at the wrong place (a later %s
// then dereferences a wrong pointer). Here every integer conversion is rendered by this
// code, whatever its length modifier (hh, h, l, ll, z, j, t); %s, %c, %p and the
// floating-point conversions go to the C library one at a time, without a modifier.
#pragma once

#include <cstdarg>
#include <cstddef>

namespace focal {

// Writes at most size - 1 characters and a terminating NUL to out (nothing if size is 0); a longer
// message is cut. A conversion this code does not know ends the message there.
void format_message(char* out, size_t size, const char* format, va_list args);

}  // namespace focal
