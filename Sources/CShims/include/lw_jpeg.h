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
    const uint8_t *xmp;   // APP1 payload ("http://ns.adobe.com/xap/1.0/\0" + XMP packet) or NULL
    size_t xmp_len;
    const uint8_t *iptc;  // APP13 payload ("Photoshop 3.0\0" + image resources) or NULL
    size_t iptc_len;
} lw_jpeg_encode_params;

/// Encodes to a malloc'd buffer (*out, *out_len; free with lw_jpeg_free). 0 on success, -1 on error.
int lw_jpeg_encode(const lw_jpeg_encode_params *p, const uint8_t *pixels, size_t row_stride,
                   uint8_t **out, size_t *out_len, char *err, size_t err_len);
void lw_jpeg_free(void *p);

// Decoding goes through lw_jpegdec.h (one decompressor for conversion and read-back).

#endif
