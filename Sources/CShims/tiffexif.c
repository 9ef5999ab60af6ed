// TIFFSetField/TIFFGetField are variadic, and the argument types of EXIF and GPS tags depend on each field's
// definition (count passed or not, float or double storage): these wrappers ask libtiff for the definition.
#include "lw_tiffexif.h"
#include <string.h>

int lw_tiff_set_u64(TIFF *t, uint32_t tag, uint64_t v) { return TIFFSetField(t, tag, v); }

/// Element `i` of an array stored as libtiff stores `type` (with `size`-byte rationals), as a double.
static double element(const void *p, TIFFDataType type, int size, uint32_t i) {
    switch (type) {
    case TIFF_BYTE: case TIFF_UNDEFINED: return ((const uint8_t *)p)[i];
    case TIFF_SBYTE: return ((const int8_t *)p)[i];
    case TIFF_SHORT: return ((const uint16_t *)p)[i];
    case TIFF_SSHORT: return ((const int16_t *)p)[i];
    case TIFF_LONG: case TIFF_IFD: return ((const uint32_t *)p)[i];
    case TIFF_SLONG: return ((const int32_t *)p)[i];
    case TIFF_LONG8: case TIFF_IFD8: return (double)((const uint64_t *)p)[i];
    case TIFF_SLONG8: return (double)((const int64_t *)p)[i];
    case TIFF_RATIONAL: case TIFF_SRATIONAL:
        return size == 8 ? ((const double *)p)[i] : ((const float *)p)[i];
    case TIFF_FLOAT: return ((const float *)p)[i];
    case TIFF_DOUBLE: return ((const double *)p)[i];
    default: return 0;
    }
}

int lw_tiff_get_numbers(TIFF *t, uint32_t tag, double *out, int max) {
    const TIFFField *f = TIFFFieldWithTag(t, tag);
    if (!f) return 0;
    TIFFDataType type = TIFFFieldDataType(f);
    if (type == TIFF_ASCII || type == TIFF_NOTYPE) return 0;
    int size = TIFFFieldSetGetSize(f);
    uint32_t count = 0;
    const void *values = NULL;
    union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; float f; double d; } one;
    memset(&one, 0, sizeof one);
    if (TIFFFieldPassCount(f)) {
        if (TIFFFieldReadCount(f) == TIFF_VARIABLE2) {
            uint32_t n = 0;
            if (!TIFFGetField(t, tag, &n, &values)) return 0;
            count = n;
        } else {
            uint16_t n = 0;
            if (!TIFFGetField(t, tag, &n, &values)) return 0;
            count = n;
        }
    } else if (TIFFFieldReadCount(f) > 1) {
        // Fixed-count arrays (GPS latitude, GPSVersionID) come back as a pointer to the values.
        if (!TIFFGetField(t, tag, &values)) return 0;
        count = (uint32_t)TIFFFieldReadCount(f);
    } else if (TIFFFieldReadCount(f) == 1) {
        if (!TIFFGetField(t, tag, &one)) return 0;
        values = &one;
        count = 1;
    } else {
        return 0;
    }
    if (!values) return 0;
    for (uint32_t i = 0; i < count && i < (uint32_t)max; i++) out[i] = element(values, type, size, i);
    return (int)count;
}
