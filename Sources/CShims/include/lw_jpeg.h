#ifndef LW_JPEG_H
#define LW_JPEG_H
#include <stddef.h>
#include <stdint.h>

// libjpeg reports errors by calling error_exit (default: exit()); these wrappers longjmp back instead
// and return -1 with the library's message in `err`.

/// What to encode: interleaved 8-bit samples, 1 (grey) or 3 (RGB) components.
typedef struct {
    int width, height, components;
    int quality;          // 1…100
    int subsample_444;    // 1: no chroma subsampling; 0: 4:2:0
    int optimize_coding;  // 1: optimised Huffman tables
    const uint8_t *exif;  // APP1 payload ("Exif\0\0" + TIFF bytes) or NULL
    size_t exif_len;
    const uint8_t *icc;   // ICC profile or NULL (written as APP2 chunks)
    size_t icc_len;
} lw_jpeg_encode_params;

/// Encodes to a malloc'd buffer (*out, *out_len; free with lw_jpeg_free). 0 on success, -1 on error.
int lw_jpeg_encode(const lw_jpeg_encode_params *p, const uint8_t *pixels, size_t row_stride,
                   uint8_t **out, size_t *out_len, char *err, size_t err_len);
void lw_jpeg_free(void *p);

/// A decoded JPEG: 1 (grey) or 3 (RGB) 8-bit components; buffers owned until lw_jpeg_image_free.
typedef struct {
    int width, height, components;
    uint8_t *pixels;
    uint8_t *icc;  size_t icc_len;   // reassembled APP2 ICC chunks, NULL when none
    uint8_t *exif; size_t exif_len;  // first APP1 "Exif\0\0" payload without that header, NULL when none
} lw_jpeg_image;

/// Decodes a whole JPEG held in memory. 0 on success, -1 on error (nothing to free then).
int lw_jpeg_decode(const uint8_t *data, size_t len, lw_jpeg_image *out, char *err, size_t err_len);
void lw_jpeg_image_free(lw_jpeg_image *img);

#endif
