#ifndef LW_REDUCE_H
#define LW_REDUCE_H
#include <stddef.h>
#include <stdint.h>

// The studio monitor's preview reduction (`PreviewImage.reduce`): whole-factor block means of interleaved integer
// samples, to 8 bits. Integer arithmetic throughout, so every CPU gives the same bytes.

/// Output rows [y0, y1) of the k × k block means of `src` (in_channels interleaved samples a pixel, `src_stride`
/// samples a row): for output pixel (x, y) and channel c < out_channels, sum = Σ src[(y·k + dy)·src_stride +
/// (x·k + dx)·in_channels + c] over dx, dy < k, mean = (sum + k²/2) / k² (integer division), written as
/// dst[(y·out_width + x)·out_channels + c] = mean for 8-bit input, min(255, (mean·255 + 32767) / 65535) for 16-bit.
/// Returns 1, or 0 with dst unwritten when its row sums could not be allocated.
int lw_block_mean_u8(const uint8_t *src, size_t src_stride, int in_channels, int out_channels, int k,
                      int out_width, int y0, int y1, uint8_t *dst);
int lw_block_mean_u16(const uint16_t *src, size_t src_stride, int in_channels, int out_channels, int k,
                       int out_width, int y0, int y1, uint8_t *dst);

#endif
