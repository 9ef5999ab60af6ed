// An in-memory LibRaw input stream that records how far LibRaw's loaders asked to read, so a file whose
// image data ends early fails instead of decoding into whatever the loader's buffers held.
#ifndef LW_RAWSTREAM_H
#define LW_RAWSTREAM_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/// A stream over bytes the caller keeps alive (and unchanged) until lw_raw_stream_free.
typedef struct lw_raw_stream lw_raw_stream;

/// A stream over `bytes[0..<count]`; NULL when out of memory.
lw_raw_stream *lw_raw_stream_create(const void *bytes, size_t count);

/// Opens the stream on a handle from libraw_init (a `libraw_data_t *`): LibRaw's own open_datastream, which
/// identifies the file. Returns LibRaw's code. LibRaw does not take ownership: free the stream after libraw_close.
int lw_raw_stream_open(void *libraw_data, lw_raw_stream *stream);

/// Forgets the reads so far (the header probing of open), so what follows measures the image data's loader.
void lw_raw_stream_reset(lw_raw_stream *stream);

/// One past the furthest byte any read since the last reset asked for (may exceed the stream's size).
uint64_t lw_raw_stream_furthest(const lw_raw_stream *stream);

/// Whether any read since the last reset asked for bytes past the end (of the stream or of a JPEG in it).
int lw_raw_stream_short(const lw_raw_stream *stream);

void lw_raw_stream_free(lw_raw_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
