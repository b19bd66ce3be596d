#include "scenario/process_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace stormwatch {

void giveLargeBuffersBack()
{
#if defined(__GLIBC__)
    // A fixed threshold (glibc's own default) turns off its dynamic raise.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

} // namespace stormwatch
