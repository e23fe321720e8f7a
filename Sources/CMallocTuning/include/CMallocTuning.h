#ifndef C_MALLOC_TUNING_H
#define C_MALLOC_TUNING_H

#include <stdlib.h>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/// Tunes glibc's malloc for a process that lives a few milliseconds: one arena for every thread, grown in steps of
/// 32 MiB of address space, so that no thread's arena grows a page at a time with an `mprotect` each, and blocks
/// below 32 MiB taken from it rather than mapped and unmapped one by one. Does nothing where the C library is not
/// glibc.
static inline void tether_tune_malloc_for_short_process(void) {
#if defined(__GLIBC__)
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_TOP_PAD, 32 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

#endif
