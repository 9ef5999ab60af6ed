// Large buffers on transparent huge pages (contract in lw_buffer.h).
#define _GNU_SOURCE
#include "lw_buffer.h"
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 << 20, LARGE = 4 << 20 };

void *lw_large_alloc(size_t bytes) {
    if (bytes < LARGE) return malloc(bytes ? bytes : 1);
    if (bytes > SIZE_MAX - HUGE_PAGE) return NULL;
    void *p = NULL;
    size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (posix_memalign(&p, HUGE_PAGE, rounded) != 0) return NULL;
    (void)madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}

void lw_large_free(void *p) { free(p); }

float *lw_floats_alloc(size_t count) {
    if (count > SIZE_MAX / sizeof(float)) return NULL;
    return lw_large_alloc(count * sizeof(float));
}

void lw_floats_free(float *p) { free(p); }

void lw_advise_huge_pages(void *p, size_t bytes) {
    if (!p || bytes < LARGE) return;
    uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE, end = ((uintptr_t)p + bytes) / HUGE_PAGE * HUGE_PAGE;
    if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
}
