#ifndef LW_LJPEG_H
#define LW_LJPEG_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/// Where one lossless-JPEG stream's samples go, as LibRaw's DNG loader places them: in scan order (lines, then
/// columns, then components), `wrap` samples to a mosaic row before moving down one. A sample past the mosaic's
/// right edge or below row y0 + rows is dropped; the stream must cover rows y0 ..< y0 + rows completely and may
/// spill past them only below the image (so tiles decoded at the same time never write each other's pixels).
typedef struct {
    uint16_t *raw;       ///< mosaic pixel (0, 0)
    size_t pitch;        ///< mosaic row length in elements
    int width;           ///< mosaic width (LibRaw's raw_width)
    int x0, y0;          ///< mosaic position of the stream's first sample
    int wrap;            ///< samples per mosaic row (LibRaw: the smaller of the tile width and raw_width)
    int rows;            ///< mosaic rows this stream writes (its tile's rows inside the image)
    int reaches_bottom;  ///< y0 + rows is the mosaic's last row + 1: samples past `rows` fall off the image
    int dng_1_1;         ///< a category-16 difference is -32768 with no extra bits (LibRaw: DNG 1.1 and later)
} lw_ljpeg_target;

typedef enum {
    LW_LJPEG_OK = 0,
    LW_LJPEG_UNSUPPORTED = 1, ///< outside what this decoder reads (or reads as LibRaw does): LibRaw's loader reads it
    LW_LJPEG_CORRUPT = 2,     ///< malformed or short stream: LibRaw's loader reads it and reports its own error
    LW_LJPEG_REJECT = 3,      ///< a stream LibRaw's loader cannot survive (restart interval 0 divides by zero): fail
} lw_ljpeg_status;

/// What lw_ljpeg_decode found; `reason` names the first problem when status is not LW_LJPEG_OK.
typedef struct {
    int status;
    char reason[120];
    size_t end;          ///< one past the last byte read (at most the stream's size)
    int precision, point_transform, predictor, components, frame_width, frame_height;
} lw_ljpeg_result;

/// Decodes the lossless JPEG (ITU T.81 process 14: SOF3, Huffman, predictors 1–7, point transform) in
/// data[0..<size] into `target`, bit for bit as LibRaw 0.20's lossless_dng_load_raw would: values are the
/// reconstructed differences modulo 2^16 and are not shifted back by the point transform (LibRaw lowers the
/// precision by it instead), a line after the first predicts with the scan's predictor from column 1 on.
/// Reads no byte outside data[0..<size]. On any status but LW_LJPEG_OK the target's rows may hold partial data
/// (the caller then lets LibRaw rewrite them). Restart intervals, sampling factors other than 1, more than four
/// components and Huffman table selectors LibRaw would not follow are LW_LJPEG_UNSUPPORTED.
int lw_ljpeg_decode(const uint8_t *data, size_t size, const lw_ljpeg_target *target, lw_ljpeg_result *result);

#ifdef __cplusplus
}
#endif
#endif
