// Large float buffers (contract in lw_buffer.h).
#define _GNU_SOURCE
#include "lw_buffer.h"
#include <stdlib.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 << 20, LARGE = 4 << 20 };

float *lw_floats_alloc(size_t count) {
    size_t bytes = count * sizeof(float);
    if (count != 0 && bytes / count != sizeof(float)) return NULL;
    if (bytes < LARGE) return malloc(bytes ? bytes : 1);
    void *p = NULL;
    size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (posix_memalign(&p, HUGE_PAGE, rounded) != 0) return NULL;
    // Advice only: where huge pages are off or unavailable the buffer works with ordinary pages.
    (void)madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}

void lw_floats_free(float *p) { free(p); }
