#ifndef LW_JPEGDEC_H
#define LW_JPEGDEC_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

// libjpeg reports errors by longjmp; Swift cannot setjmp. Each lw_jpegdec_* call below runs one libjpeg call
// under setjmp and returns 0 on success or -1 on error, the error's one-line text in lw_jpegdec_message.
// After an error only lw_jpegdec_destroy may be called.

/// A decompressor reading from memory (the bytes must outlive it).
typedef struct lw_jpegdec lw_jpegdec;

/// NULL when out of memory or `size` is 0.
lw_jpegdec *lw_jpegdec_create(const uint8_t *data, size_t size);
void lw_jpegdec_destroy(lw_jpegdec *d);
/// The libjpeg state, for reading header fields and setting output parameters between calls.
struct jpeg_decompress_struct *lw_jpegdec_info(lw_jpegdec *d);
/// The last error's text ("" when none).
const char *lw_jpegdec_message(const lw_jpegdec *d);
/// Number of corrupt-data warnings libjpeg emitted (recoverable damage), and the first one's text.
int lw_jpegdec_warning_count(const lw_jpegdec *d);
const char *lw_jpegdec_first_warning(const lw_jpegdec *d);

/// Keeps APP1 (EXIF) and APP2 (ICC) markers, then jpeg_read_header.
int lw_jpegdec_read_header(lw_jpegdec *d);
/// jpeg_read_icc_profile: 1 with a malloc'ed profile (free with free()), 0 when absent or its chunks are corrupt.
int lw_jpegdec_read_icc(lw_jpegdec *d, uint8_t **profile, unsigned *length);
/// jpeg_start_decompress.
int lw_jpegdec_start(lw_jpegdec *d);
/// jpeg_read_scanlines into `count` rows; `*read` receives the number read. A truncated file is an error here.
int lw_jpegdec_read_rows(lw_jpegdec *d, uint8_t **rows, unsigned count, unsigned *read);
/// jpeg_finish_decompress.
int lw_jpegdec_finish(lw_jpegdec *d);

#endif
