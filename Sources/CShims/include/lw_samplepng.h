#ifndef LW_SAMPLEPNG_H
#define LW_SAMPLEPNG_H
#include <stddef.h>
#include <stdint.h>

/// Writes interleaved 8-bit RGB rows as a PNG tagged sRGB (sRGB chunk plus matching gAMA/cHRM).
/// libpng reports errors by longjmp, which Swift cannot catch: the whole write happens here.
/// Returns 0 on success; otherwise -1 with a message in `error` (at most `error_size` bytes).
int lw_samplepng_write_srgb8(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height,
                             char *error, size_t error_size);

#endif
