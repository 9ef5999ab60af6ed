#ifndef LW_TIFF_H
#define LW_TIFF_H
#include <stdint.h>
#include <tiffio.h>

// Non-variadic fronts for TIFFSetField/TIFFGetField, which Swift cannot call.
int lw_tiff_set_u16(TIFF *tif, uint32_t tag, uint16_t value);
int lw_tiff_set_u32(TIFF *tif, uint32_t tag, uint32_t value);
int lw_tiff_set_double(TIFF *tif, uint32_t tag, double value);
int lw_tiff_set_string(TIFF *tif, uint32_t tag, const char *value);
/// Tags whose value is a count plus an array (ICC profile, XMP, CFA pattern, matrices...).
int lw_tiff_set_bytes(TIFF *tif, uint32_t tag, uint32_t count, const void *bytes);
int lw_tiff_set_u16_array(TIFF *tif, uint32_t tag, uint16_t count, const uint16_t *values);
int lw_tiff_set_u32_array(TIFF *tif, uint32_t tag, uint16_t count, const uint32_t *values);
/// Float/rational array tags with a count (ColorMatrix1, AsShotNeutral, BlackLevel...).
int lw_tiff_set_float_array(TIFF *tif, uint32_t tag, uint16_t count, const float *values);
/// Tags with a fixed count whose value is passed as a bare pointer (DNGVersion, CFARepeatPatternDim...).
int lw_tiff_set_pointer(TIFF *tif, uint32_t tag, const void *values);
/// Extra samples (alpha): count and types.
int lw_tiff_set_extrasamples(TIFF *tif, uint16_t count, const uint16_t *types);

int lw_tiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *value);
int lw_tiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *value);
/// Count-plus-pointer tags (ICC profile): the pointer stays owned by libtiff.
int lw_tiff_get_bytes(TIFF *tif, uint32_t tag, uint32_t *count, const void **bytes);
int lw_tiff_get_extrasamples(TIFF *tif, uint16_t *count, const uint16_t **types);

/// Silences libtiff's default stderr handlers; errors are reported by LightWork itself.
void lw_tiff_quiet(void);
/// The last error or warning message libtiff reported on this thread ("" when none).
const char *lw_tiff_last_error(void);
/// Forgets the last message (before reading another file on this thread).
void lw_tiff_clear_error(void);

#endif
