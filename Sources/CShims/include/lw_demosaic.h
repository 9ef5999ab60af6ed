#ifndef LW_DEMOSAIC_H
#define LW_DEMOSAIC_H
#include <stddef.h>
#include <stdint.h>

/// A 2×2 Bayer mosaic and how to normalise it: position k = (y & 1) * 2 + (x & 1) of the visible image.
typedef struct {
    const uint16_t *raw;   ///< visible pixel (0, 0) of the mosaic
    size_t pitch;          ///< mosaic row length in elements
    int width, height;     ///< visible size
    int colour[4];         ///< 0 red, 1 green, 2 blue at each position
    float black[4];        ///< black level at each position, in raw units
    float scale[4];        ///< white balance / (white - black): the balanced value is (raw - black) * scale, clipped to 0…1
    float to_xyz[9];       ///< balanced camera RGB → XYZ relative to the white (1, 1, 1 → 1, 1, 1), for AHD's homogeneity test
} lw_bayer;

/// Tile edge of the AHD kernel (output pixels); lw_ahd_scratch_bytes() is the scratch one tile needs.
enum { LW_AHD_TILE = 64 };
size_t lw_ahd_scratch_bytes(void);

/// Adaptive homogeneity-directed demosaic (Hirakawa & Parks 2005) of the tile whose top-left output pixel is
/// (x0, y0), both even, writing balanced RGB (0…65535, fourth channel 0) as 4 samples a pixel into out, which
/// points at the start of output row y0 (rows `width` pixels apart): pixel (x, y) of the tile goes to
/// out[((y − y0) · width + x) · 4]. A whole image buffer passes its row y0; a band of rows starting at y0 its start,
/// so a caller can demosaic a band of tiles and convert it while it is in the cache.
void lw_ahd_tile(const lw_bayer *bayer, int x0, int y0, void *scratch, uint16_t *out);

/// Tile edge of the RCD kernel (output pixels); lw_rcd_scratch_bytes() is the scratch one tile needs.
enum { LW_RCD_TILE = 128 };
size_t lw_rcd_scratch_bytes(void);

/// Ratio-corrected demosaic (Luis Sanz Rodríguez's RCD) of the tile whose top-left output pixel is (x0, y0), both
/// even, with the output contract of lw_ahd_tile; to_xyz is not used.
void lw_rcd_tile(const lw_bayer *bayer, int x0, int y0, void *scratch, uint16_t *out);

/// Tile edge of the dual demosaic (output pixels); lw_dual_scratch_bytes() is the scratch one tile needs.
enum { LW_DUAL_TILE = 128 };
size_t lw_dual_scratch_bytes(void);

/// Dual demosaic (`dual.c`) of the tile whose top-left output pixel is (x0, y0), both even, with the output contract
/// of lw_ahd_tile; to_xyz is not used. RCD in smooth areas; in fine texture (up to and past Nyquist) each site's own
/// mosaic value with the other colours from a median of RCD's colour differences, so grey texture stays grey; the
/// two mixed by the local gradient energy of RCD's green.
void lw_dual_tile(const lw_bayer *bayer, int x0, int y0, void *scratch, uint16_t *out);

/// A 6×6 X-Trans mosaic and how to normalise it: site k = (y % 6) * 6 + x % 6 of the visible image.
typedef struct {
    const uint16_t *raw;   ///< visible pixel (0, 0) of the mosaic
    size_t pitch;          ///< mosaic row length in elements
    int width, height;     ///< visible size, each at least 6
    int colour[36];        ///< 0 red, 1 green, 2 blue at each site
    float black[36];       ///< black level at each site, in raw units
    float scale[36];       ///< white balance / (white - black) at each site, as lw_bayer's
    float to_xyz[9];       ///< balanced camera RGB → XYZ relative to the white, for the homogeneity test
} lw_xtrans;

/// Tile edge of the X-Trans kernel (output pixels), a whole number of periods so every tile shares one plan.
enum { LW_XTRANS_TILE = 60 };
/// Bytes of the weights every tile of one mosaic uses, and of one tile's scratch.
size_t lw_xtrans_plan_bytes(void);
size_t lw_xtrans_scratch_bytes(void);

/// Lays out the weights of x's layout, black levels and scales into plan; 0 when the layout is not one the kernel
/// handles (a red or blue site with no green beside it, or a colour with no site within two pixels of some site).
int lw_xtrans_plan(const lw_xtrans *x, void *plan);

/// Directional X-Trans demosaic (in the manner of Markesteijn's one pass) of the tile whose top-left output pixel is
/// (x0, y0), both multiples of LW_XTRANS_TILE, with lw_ahd_tile's output contract; plan from lw_xtrans_plan.
void lw_xtrans_tile(const lw_xtrans *x, const void *plan, int x0, int y0, void *scratch, uint16_t *out);

#endif
