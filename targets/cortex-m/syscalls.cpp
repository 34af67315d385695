// newlib system calls on top of semihosting: stdio to the host console, a heap between
// .bss and the stack, exit status to qemu. Anything else (open, times, ...) comes from
// libnosys (--specs=nosys.specs) and fails with ENOSYS. Plus posix_memalign (see below).
// Linked as object files (not an archive): libc references these symbols only after the
// runtime would have been scanned, and libnosys would win.
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "semihosting.h"

extern "C" {
extern char __heap_start__[], __heap_end__[];  // ld/sections.ld

_ssize_t _write(int fd, const void* buf, size_t len);
_ssize_t _read(int fd, void* buf, size_t len);
int _close(int fd);
int _fstat(int fd, struct stat* st);
int _isatty(int fd);
_off_t _lseek(int fd, _off_t offset, int whence);
void* _sbrk(ptrdiff_t increment);
int _kill(int pid, int sig);
int _getpid();
int posix_memalign(void** memptr, size_t alignment, size_t size);
}

namespace {

namespace sh = focal::semihosting;

// Semihosting handle of fd 0/1/2: opening ":tt" with mode r (0), w (4) or a (8) gives the
// host's stdin, stdout or stderr. Opened on first use; -1 means not yet.
int console_handle(int fd) {
  static int handles[3] = {-1, -1, -1};
  if (fd < 0 || fd > 2) return -1;
  if (handles[fd] < 0) {
    static const char name[] = ":tt";
    const std::uint32_t block[3] = {reinterpret_cast<std::uintptr_t>(name),
                                    static_cast<std::uint32_t>(fd * 4), sizeof(name) - 1};
    handles[fd] = static_cast<int>(sh::call(sh::kOpen, block));
  }
  return handles[fd];
}

// SYS_WRITE or SYS_READ of len bytes at buf on fd 0/1/2: the bytes moved, or -1 with
// errno EBADF for any other fd. The host answers with the bytes it did NOT move.
_ssize_t console_transfer(sh::Op operation, int fd, void* buf, size_t len) {
  const int handle = console_handle(fd);
  if (handle < 0) {
    errno = EBADF;
    return -1;
  }
  const std::uint32_t block[3] = {static_cast<std::uint32_t>(handle),
                                  reinterpret_cast<std::uintptr_t>(buf), len};
  return static_cast<_ssize_t>(len - sh::call(operation, block));
}

char* heap_break = __heap_start__;
char* heap_peak = __heap_start__;  // the highest break so far

}  // namespace

extern "C" _ssize_t _write(int fd, const void* buf, size_t len) {
  return console_transfer(sh::kWrite, fd, const_cast<void*>(buf), len);
}

extern "C" _ssize_t _read(int fd, void* buf, size_t len) { return console_transfer(sh::kRead, fd, buf, len); }

extern "C" int _close(int) { return 0; }

// A character device: newlib then line-buffers stdout, one semihosting call per line.
extern "C" int _fstat(int, struct stat* st) {
  st->st_mode = S_IFCHR;
  return 0;
}
extern "C" int _isatty(int fd) { return fd >= 0 && fd <= 2; }
extern "C" _off_t _lseek(int, _off_t, int) { return 0; }

// malloc's memory: from the end of .bss up to the bottom of the stack.
extern "C" void* _sbrk(ptrdiff_t increment) {
  if (increment > __heap_end__ - heap_break || increment < __heap_start__ - heap_break) {
    errno = ENOMEM;
    return reinterpret_cast<void*>(-1);
  }
  char* previous = heap_break;
  heap_break += increment;
  if (heap_break > heap_peak) heap_peak = heap_break;
  return previous;
}

extern "C" char* focal_heap_peak() { return heap_peak; }  // memory_usage.cpp

// exit() ends here after flushing stdio; qemu exits with `status`.
extern "C" void _exit(int status) { sh::exit(status); }

// abort() -> raise(SIGABRT) -> _kill: exit like a shell reports a signal (134).
extern "C" int _kill(int, int sig) {
  sh::write0("\n*** focal firmware: killed by a signal (abort?)\n");
  sh::exit(128 + sig);
}
extern "C" int _getpid() { return 1; }

// newlib declares posix_memalign (xsimd's aligned_malloc uses it) but does not define it.
extern "C" int posix_memalign(void** memptr, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* block = memalign(alignment, size);  // free() releases it like any malloc block
  if (block == nullptr) return ENOMEM;
  *memptr = block;
  return 0;
}
