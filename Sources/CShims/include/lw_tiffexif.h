#ifndef LW_TIFFEXIF_H
#define LW_TIFFEXIF_H
#include <stdint.h>
#include <tiffio.h>

/// Sets a 64-bit offset tag (TIFFTAG_EXIFIFD, TIFFTAG_GPSIFD are IFD8 fields in libtiff).
int lw_tiff_set_u64(TIFF *tif, uint32_t tag, uint64_t value);

/// Reads a numeric tag of the current directory (image, EXIF or GPS) whatever its storage: BYTE, SHORT,
/// LONG, IFD/IFD8, RATIONAL (libtiff stores EXIF rationals as float, GPS ones as double), FLOAT, DOUBLE; one
/// value, a fixed-count array or a counted array. Writes up to `max` values into `out` and returns how many
/// the tag holds (0 when the tag is absent or not numeric).
int lw_tiff_get_numbers(TIFF *tif, uint32_t tag, double *out, int max);

#endif
