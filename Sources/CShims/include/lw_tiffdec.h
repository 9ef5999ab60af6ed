#ifndef LW_TIFFDEC_H
#define LW_TIFFDEC_H
#include <stddef.h>
#include <stdint.h>
#include <tiffio.h>

// libtiff over bytes in memory (TIFFClientOpen's callbacks are C function pointers, simplest kept in C).
// The bytes must outlive the handle; TIFFClose frees the reader's state. NULL when libtiff refuses the header
// (its message in lw_tiff_last_error).
TIFF *lw_tiff_open_memory(const uint8_t *data, size_t size, const char *name);

/// TIFFGetField for the colour map: three arrays of 2^bits entries, owned by libtiff.
int lw_tiff_get_colormap(TIFF *tif, const uint16_t **red, const uint16_t **green, const uint16_t **blue);
/// TIFFSetField(TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB): JPEG-compressed YCbCr delivered as RGB by libjpeg.
int lw_tiff_jpeg_as_rgb(TIFF *tif);
/// TIFFSetField for the colour map (writing palette images: the tests).
int lw_tiff_set_colormap(TIFF *tif, const uint16_t *red, const uint16_t *green, const uint16_t *blue);

#endif
