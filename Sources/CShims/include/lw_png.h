#ifndef LW_PNG_H
#define LW_PNG_H
#include <stddef.h>
#include <stdint.h>

// libpng reports errors by longjmp; this wrapper catches them and returns -1 with the message in `err`.

/// What to encode: interleaved samples, 1-4 channels (grey, grey+alpha, RGB, RGBA); 16-bit samples are
/// in native byte order (swapped to PNG's big-endian on the way out).
typedef struct {
    int width, height, channels, bit_depth;
    int compression_level;   // zlib 0…9
    int filters;             // PNG_FILTER_* mask (PNG_FILTER_UP = 0x20)
    const uint8_t *icc; size_t icc_len; const char *icc_name;  // iCCP chunk, or icc == NULL
    const uint8_t *exif; size_t exif_len;                      // eXIf chunk (TIFF bytes), or NULL
    const uint8_t *xmp; size_t xmp_len;                        // iTXt "XML:com.adobe.xmp" (the packet, no NUL), or NULL
} lw_png_encode_params;

/// Writes the PNG to `fd` (buffered). 0 on success; -1 on error, with *io_errno set when a write() failed.
int lw_png_encode_fd(int fd, const lw_png_encode_params *p, const void *pixels, size_t row_bytes,
                     int *io_errno, char *err, size_t err_len);

// Decoding goes through lw_pngdec.h (one reader for conversion and read-back).

#endif
