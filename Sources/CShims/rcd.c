// Ratio-corrected demosaic (RCD) of a 2×2 Bayer mosaic, written from Luis Sanz Rodríguez's description of his
// algorithm (github.com/LuisSR/RCD-Demosaicing, 2017): decide per pixel how much an edge runs along rows or
// columns from a high-pass filter's energy in each direction; fill green along that direction, each neighbour's
// value scaled by the ratio of a low-pass image at the pixel to the one between pixel and neighbour (a brightness
// ratio, so slopes and edges do not bleed); then fill red and blue by colour differences along the diagonals
// (at red and blue sites) and along the rows and columns (at green sites), each weighted by its gradient.
// One tile at a time in float, every loop branch-free over whole rows so that it vectorises; the same C is built
// for AVX2 and for baseline x86-64 without FMA, so both give the same bytes.
#include "lw_demosaic.h"
#include "lw_cpu.h"
#include "bayer_tile.h"

#define M 10                             // tile margin: the widest chain of neighbour reads (see each step's inset)
#define E (LW_RCD_TILE + 2 * M)          // extended tile edge
#define A (E * E)
#include "rcd_steps.h"

typedef struct {
    float cfa[A];
    float vsq[A], hsq[A];                // squared high-pass response down columns and along rows (then diagonals)
    float vh[A], pq[A];                  // share of the energy that is vertical (vh) or along the NW–SE diagonal (pq)
    float vhd[A], pqd[A];                // the same, refined with the neighbours when they are more decided
    float lpf[A];                        // low-pass mosaic, for the ratio correction
    float g[A], r[A], b[A];
    rcd_sites_t sites;
} rcd_tile_t;

size_t lw_rcd_scratch_bytes(void) { return sizeof(rcd_tile_t); }

static inline __attribute__((always_inline))
void tile_body(const lw_bayer *b, int x0, int y0, rcd_tile_t *restrict t, uint16_t *out) {
    const int W = b->width, H = b->height;
    rcd_setup(b, &t->sites);

    // 1. The normalised mosaic, mirrored at the image edges.
    lw_bayer_load(b, x0, y0, M, E, t->sites.black[0], t->sites.scale[0], t->cfa);

    // 2. Direction: the share of the high-pass energy down the columns (against along the rows) (inset 4).
    //    vh → 1: the picture changes down the columns, so interpolate along the row.
    directional_share(t->cfa, t->vsq, t->hsq, t->vh, E, 1);
    // 3–6 (rcd_steps.h): low-pass mosaic, green, the diagonal direction, red and blue at each other's sites.
    rcd_lowpass(t->cfa, t->lpf);
    rcd_green(t->cfa, t->lpf, t->vh, t->cfa, 0, &t->sites, t->g, t->vhd);
    rcd_diagonals(t->cfa, t->g, &t->sites, t->vsq, t->hsq, t->pq, t->pqd, t->r, t->b);

    // 7. Red and blue at green sites from the row and column neighbours' colour differences, the directions by
    //    vh (inset 10: M); then every output pixel.
    int tw = W - x0 < LW_RCD_TILE ? W - x0 : LW_RCD_TILE;
    int th = H - y0 < LW_RCD_TILE ? H - y0 : LW_RCD_TILE;
    for (int j = M; j < M + th; j++) {
        const float *g = t->g + j * E, *r = t->r + j * E, *bb = t->b + j * E, *vd = t->vhd + j * E;
        const float *gm = t->sites.isg[j & 1];
        uint16_t *restrict dst = out + ((size_t)(j - M) * W + x0) * 4;   // out is the tile's first row
        for (int i = M; i < M + tw; i++) {
            float rg, bg;
            RCD_FILL(r, rg)
            RCD_FILL(bb, bg)
            float green = gm[i] != 0;
            float rv = green != 0 ? rg : r[i], bv = green != 0 ? bg : bb[i];
            uint16_t *px = dst + 4 * (i - M);
            px[0] = (uint16_t)(rv * 65535.0f + 0.5f);
            px[1] = (uint16_t)(g[i] * 65535.0f + 0.5f);
            px[2] = (uint16_t)(bv * 65535.0f + 0.5f);
            px[3] = 0;
        }
    }
}

__attribute__((target("avx2")))
static void tile_avx2(const lw_bayer *b, int x0, int y0, rcd_tile_t *t, uint16_t *out) { tile_body(b, x0, y0, t, out); }
static void tile_base(const lw_bayer *b, int x0, int y0, rcd_tile_t *t, uint16_t *out) { tile_body(b, x0, y0, t, out); }

void lw_rcd_tile(const lw_bayer *b, int x0, int y0, void *scratch, uint16_t *out) {
    if (lw_cpu_avx2()) tile_avx2(b, x0, y0, scratch, out);
    else tile_base(b, x0, y0, scratch, out);
}
