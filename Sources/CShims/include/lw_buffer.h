#ifndef LW_BUFFER_H
#define LW_BUFFER_H
#include <stddef.h>

/// Float buffers of the develop stage's planes. Buffers of 4 MiB or more are 2 MiB-aligned and marked for
/// transparent huge pages (madvise), so that a 96 MB plane takes 48 page faults instead of 24,000; smaller ones
/// are plain allocations. NULL when out of memory. Free with lw_floats_free.
float *lw_floats_alloc(size_t count);
void lw_floats_free(float *p);

#endif
