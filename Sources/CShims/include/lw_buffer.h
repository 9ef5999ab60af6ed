#ifndef LW_BUFFER_H
#define LW_BUFFER_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Large image buffers (working images, develop planes, output windows). Buffers of 4 MiB or more are mappings of
/// their own, 2 MiB-aligned (so that where the system puts all memory on transparent huge pages, THP `always`, they
/// get them); smaller ones are plain allocations. LightWork does not ask for huge pages itself (no MADV_HUGEPAGE):
/// on the 2-core VM it is measured on, a huge page's first touch cost ~6 ms of system time where the host had
/// taken the memory back, and the same conversions ran with a third of the system time on 4 KiB pages
/// (docs/performance.md, "Huge pages given up"). NULL when out of memory (or `bytes` overflows). Free with
/// lw_large_free.
///
/// A freed large one is kept (up to 1 GiB, six blocks, oldest dropped
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

#ifdef __cplusplus
}
#endif

#endif
