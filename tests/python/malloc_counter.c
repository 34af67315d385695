/* Counts heap allocations of a whole process, loaded with LD_PRELOAD (the Python module's
 * allocation test, test_module_allocations.py, reads the count through ctypes).
 * Each allocation function forwards to glibc's own (__libc_*), so no dlsym is needed
 * before the first malloc. C++'s operator new calls malloc, so it is counted too. */
#include <stdatomic.h>
#include <stddef.h>

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* pointer, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);

static atomic_long allocations;

long malloc_counter_allocations(void) { return atomic_load(&allocations); }

void* malloc(size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_realloc(pointer, size);
}

void* memalign(size_t alignment, size_t size) {
  atomic_fetch_add(&allocations, 1);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

int posix_memalign(void** out, size_t alignment, size_t size) {
  void* pointer = memalign(alignment, size);
  if (pointer == NULL) return 12; /* ENOMEM */
  *out = pointer;
  return 0;
}
