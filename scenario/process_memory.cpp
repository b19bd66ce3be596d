#include "scenario/process_memory.h"

#include <cstdlib> // defines __GLIBC__ on glibc: without a C library header first, it is not

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace stormwatch {

void setUpProcessMemory()
{
#if defined(__GLIBC__)
    // A fixed threshold (glibc's own default) turns off its dynamic raise.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_ARENA_MAX, 2);
#endif
}

void returnFreedMemory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace stormwatch
