#ifndef LW_TIFFTAGS_H
#define LW_TIFFTAGS_H
#include <stdint.h>
#include <tiffio.h>

/// ASCII tags (Software, DateTime…) through non-variadic TIFFGetField; the string stays owned by libtiff.
int lw_tiff_get_string(TIFF *tif, uint32_t tag, const char **value);

#endif
