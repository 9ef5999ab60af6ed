#ifndef LW_TIFFSTRIP_H
#define LW_TIFFSTRIP_H
#include <stddef.h>
#include <stdint.h>

/// Largest compressed size of a strip of `bytes` bytes (the output buffer lw_deflate_tiff_strip needs).
size_t lw_deflate_tiff_strip_bound(size_t bytes);

/// One TIFF strip as libtiff's Deflate codec with the horizontal predictor would write it: the rows of `src`
/// (`rows` × `width` pixels of `channels` samples of `bytes_per_sample` bytes, native byte order) differenced
/// into `scratch` (as large as the strip; `src` is left as it is), then one zlib stream at libdeflate `level`
/// into `out`. Returns the compressed size, or 0 when the compressor cannot be made or the output does not fit.
size_t lw_deflate_tiff_strip(const void *src, size_t rows, size_t width, int channels, int bytes_per_sample,
                             int level, void *scratch, void *out, size_t out_capacity);
#endif
