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

/// The caller is giving the bytes back (after the unpack): from here any read through the stream aborts the process,
/// a bug made loud instead of a decode of memory that is no longer the file's.
void lw_raw_stream_detach(lw_raw_stream *stream);

void lw_raw_stream_free(lw_raw_stream *stream);

/// A LibRaw handle (a `libraw_data_t *`, closed by libraw_close) whose lossless-JPEG DNG loader lw_raw_unpack can
/// replace with LightWork's own (lw_ljpeg.h); NULL when out of memory.
void *lw_raw_init(void);

/// Runs `body(job, i)` for every i in 0..<count, on any threads, returning when all have run.
typedef void (*lw_parallel_body)(void *job, int index);
typedef void (*lw_parallel_for)(void *context, int count, lw_parallel_body body, void *job);

/// Which of LibRaw's DNG loaders LightWork's stood in for.
typedef enum {
    LW_RAW_LOADER_NONE = 0,
    LW_RAW_LOADER_LOSSLESS_JPEG = 1,   ///< lossless_dng_load_raw: lw_ljpeg_decode, tile-parallel
    LW_RAW_LOADER_UNCOMPRESSED = 2,    ///< packed_dng_load_raw on 16-bit samples in one run: rows copied in parallel
} lw_raw_loader;

/// Which loader produced the mosaic of one lw_raw_unpack.
typedef struct {
    int handled;         ///< the file's loader was one LightWork's can stand in for (`loader`), and it was asked to
    lw_raw_loader loader;   ///< which, when handled
    int own;             ///< LightWork's decoder wrote the mosaic (else LibRaw's loader did, for `reason`)
    int rejected;        ///< a stream LibRaw's loader cannot read safely: the decode must fail for `reason`
    int streams;         ///< lossless-JPEG streams (tiles) in the image
    int precision, predictor, components, point_transform;   ///< of the first stream, when own
    char reason[192];
} lw_raw_unpack_report;

/// LibRaw's unpack, with LightWork's tile-parallel lossless-JPEG decoder in place of lossless_dng_load_raw, and a
/// parallel copy in place of packed_dng_load_raw for 16-bit little-endian samples in one run, when `parallel` is
/// non-NULL and the handle came from lw_raw_init; the mosaic is bit for bit LibRaw's (anything LightWork's loaders
/// do not read as LibRaw does goes to LibRaw's loader, for the whole image). Returns LibRaw's code.
int lw_raw_unpack(void *libraw_data, lw_parallel_for parallel, void *context, lw_raw_unpack_report *report);

#ifdef __cplusplus
}
#endif
#endif
