#ifndef LW_BUFFER_H
#define LW_BUFFER_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Large image buffers (working images, develop planes, output samples). A 24 MP file passes about a gigabyte of
/// fresh memory through a conversion, and on 4 KiB pages faulting it in cost 0.6–0.8 CPU s of a 3.2 s file
/// (docs/performance.md). Buffers of 4 MiB or more are therefore 2 MiB-aligned and marked for transparent huge
/// pages (madvise), so that a 192 MB image takes 96 page faults instead of 47,000 (measured: 27 ms against 113 ms
/// to touch it); smaller ones are plain allocations. The advice is only advice: where huge pages are off the
/// buffers work with ordinary pages. NULL when out of memory (or `bytes` overflows). Free with lw_large_free.
///
/// The large ones are mappings of their own, and a freed one is kept (up to 1 GiB, six blocks, oldest dropped
/// first) for the next request of its size, within an eighth: a batch worker asks for the same sizes for every
/// file. In the heap, the next file's mosaic and small buffers split the freed image's space, so the heap grew by
/// a whole image for the second file; here fresh memory is dear (the VM hands freed pages back to its host, which
/// faults them in again at about 4 ms per 2 MiB), and that growth was 0.35 CPU-s a worker. A reused block holds
/// what it held: every user writes before it reads, as with any allocation. Past 64 blocks in use at once, further
/// ones come from the heap (and go back to it), so the pool never fails a request the machine can meet.
void *lw_large_alloc(size_t bytes);
void lw_large_free(void *p);

/// The same for `count` floats (a develop plane).
float *lw_floats_alloc(size_t count);
void lw_floats_free(float *p);

/// Marks the whole 2 MiB pages inside [p, p + bytes) of a buffer someone else allocated (an array's storage,
/// LibRaw's raw buffer) for transparent huge pages, before anything touches them. Does nothing under 4 MiB.
void lw_advise_huge_pages(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
