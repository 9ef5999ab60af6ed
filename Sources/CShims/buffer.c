// Large buffers as mappings of their own, kept for reuse (contract in lw_buffer.h).
#define _GNU_SOURCE
#include "lw_buffer.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { HUGE_PAGE = 2 << 20, LARGE = 4 << 20, LIVE_MAX = 64, KEPT_MAX = 6 };
// What the pool may hold unused: a 24 MP working image and its develop planes several times over, a 96 MP
// image (768 MB) once.
static const size_t kept_bytes_max = (size_t)1 << 30;

typedef struct { void *p; size_t bytes; } block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block live[LIVE_MAX];   // mapped blocks in use
static int live_count;
static block kept[KEPT_MAX];   // mapped blocks freed, oldest first
static int kept_count;
static size_t kept_total;

// A fresh 2 MiB-aligned mapping of `bytes` (a multiple of HUGE_PAGE); NULL when none.
static void *map_block(size_t bytes) {
    if (bytes > SIZE_MAX - HUGE_PAGE) return NULL;
    unsigned char *raw = mmap(NULL, bytes + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uintptr_t start = ((uintptr_t)raw + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    size_t head = start - (uintptr_t)raw, tail = HUGE_PAGE - head;
    if (head) munmap(raw, head);
    if (tail) munmap((void *)(start + bytes), tail);
    return (void *)start;
}

void *lw_large_alloc(size_t bytes) {
    if (bytes < LARGE) return malloc(bytes ? bytes : 1);
    if (bytes > SIZE_MAX - HUGE_PAGE) return NULL;
    size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = NULL;
    pthread_mutex_lock(&lock);
    // The smallest kept block that fits without wasting more than an eighth (a batch asks for the same sizes again).
    int best = -1;
    for (int k = 0; k < kept_count; k++)
        if (kept[k].bytes >= rounded && kept[k].bytes - rounded <= rounded / 8 && (best < 0 || kept[k].bytes < kept[best].bytes)) best = k;
    block b = {NULL, rounded};
    if (best >= 0) {
        b = kept[best];
        kept_total -= b.bytes;
        for (int k = best; k + 1 < kept_count; k++) kept[k] = kept[k + 1];
        kept_count--;
    }
    pthread_mutex_unlock(&lock);
    if (!b.p) b.p = map_block(rounded);
    if (!b.p) return NULL;
    pthread_mutex_lock(&lock);
    if (live_count < LIVE_MAX) { live[live_count++] = b; p = b.p; }
    pthread_mutex_unlock(&lock);
    if (p) return p;
    // More live blocks than the registry holds: this one from the heap, as before the pool (lw_large_free frees
    // anything it does not know with free), rather than failing a request the machine can meet.
    munmap(b.p, b.bytes);
    if (posix_memalign(&p, HUGE_PAGE, rounded) != 0) return NULL;
    return p;
}

void lw_large_free(void *p) {
    if (!p) return;
    pthread_mutex_lock(&lock);
    int at = -1;
    for (int k = 0; k < live_count; k++) if (live[k].p == p) { at = k; break; }
    if (at < 0) { pthread_mutex_unlock(&lock); free(p); return; }   // a small one, from malloc
    block b = live[at];
    live[at] = live[--live_count];
    // Keep it, dropping the oldest kept blocks to stay within the limits; a block over the limit on its own goes.
    block drop[KEPT_MAX + 1];
    int drops = 0;
    if (b.bytes > kept_bytes_max) {
        drop[drops++] = b;
    } else {
        while (kept_count > 0 && (kept_count == KEPT_MAX || kept_total + b.bytes > kept_bytes_max)) {
            drop[drops++] = kept[0];
            kept_total -= kept[0].bytes;
            for (int k = 0; k + 1 < kept_count; k++) kept[k] = kept[k + 1];
            kept_count--;
        }
        kept[kept_count++] = b;
        kept_total += b.bytes;
    }
    pthread_mutex_unlock(&lock);
    for (int k = 0; k < drops; k++) munmap(drop[k].p, drop[k].bytes);
}

float *lw_floats_alloc(size_t count) {
    if (count > SIZE_MAX / sizeof(float)) return NULL;
    return lw_large_alloc(count * sizeof(float));
}

void lw_floats_free(float *p) { lw_large_free(p); }
