// TIFFGetField is variadic, which Swift cannot call; lw_tiff.h covers the numeric tags, this the ASCII ones.
#include "lw_tifftags.h"

int lw_tiff_get_string(TIFF *t, uint32_t tag, const char **v) { return TIFFGetField(t, tag, v); }
