#ifndef LW_PNGDEC_H
#define LW_PNGDEC_H
#include <stddef.h>
#include <stdint.h>
#include <png.h>

// libpng reports errors by longjmp; Swift cannot setjmp. Each lw_pngdec_* call below runs one libpng step
// under setjmp and returns 0 on success or -1 on error, the error's one-line text in lw_pngdec_message.
// After an error only lw_pngdec_destroy may be called. png_get_* accessors are safe to call directly.

/// A PNG reader over memory (the bytes must outlive it).
typedef struct lw_pngdec lw_pngdec;

/// NULL when out of memory.
lw_pngdec *lw_pngdec_create(const uint8_t *data, size_t size);
void lw_pngdec_destroy(lw_pngdec *d);
png_structp lw_pngdec_png(lw_pngdec *d);
png_infop lw_pngdec_info(lw_pngdec *d);
/// The last error's text ("" when none).
const char *lw_pngdec_message(const lw_pngdec *d);

/// Checks the signature, then png_read_info (all chunks before the image data).
int lw_pngdec_read_info(lw_pngdec *d);
/// Asks for 8 or 16-bit samples, native byte order, palette → RGB, tRNS → alpha, grey below 8 bits → 8 bits,
/// deinterlacing; then png_read_update_info. `*passes` receives the number of interlace passes.
int lw_pngdec_expand(lw_pngdec *d, int *passes);
/// png_read_rows over `count` rows (call once per pass per row for interlaced images).
int lw_pngdec_read_rows(lw_pngdec *d, uint8_t **rows, uint32_t count);
/// png_read_end: chunks after the image data (a late eXIf lands in the info struct) and their CRCs.
int lw_pngdec_read_end(lw_pngdec *d);

#endif
