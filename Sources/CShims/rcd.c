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

typedef struct {
    float cfa[A];
    float vsq[A], hsq[A];                // squared high-pass response down columns and along rows (then diagonals)
    float vh[A], pq[A];                  // share of the energy that is vertical (vh) or along the NW–SE diagonal (pq)
    float vhd[A], pqd[A];                // the same, refined with the neighbours when they are more decided
    float lpf[A];                        // low-pass mosaic, for the ratio correction
    float g[A], r[A], b[A];
    // Per row parity: black, scale and masks of the site's colour at each column.
    float black[2][E], scale[2][E], isg[2][E], isr[2][E], isb[2][E];
} rcd_tile_t;

size_t lw_rcd_scratch_bytes(void) { return sizeof(rcd_tile_t); }

static const float eps = 1e-5f, eps2 = 1e-10f;

static inline float clamp01(float v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }
static inline float absf(float v) { return v < 0 ? -v : v; }
// The value of the estimate the more decided of a pixel's own share and its neighbours' mean points to.
static inline float decided(float own, float around) { return absf(0.5f - own) < absf(0.5f - around) ? around : own; }

// The share of the high-pass energy along stride a against along stride b (a/(a+b), inset 4), with asq and bsq
// as scratch: the squared response of the filter (1, -3, -1, 6, -1, -3, 1) (taps 3 apart vanish on flat colour
// and on a plain colour difference between sites) along each (inset 3), summed over three pixels along it.
static inline __attribute__((always_inline))
void directional_share(const float *cfa, float *restrict asq, float *restrict bsq, float *restrict share, int a, int b) {
    for (int j = 3; j < E - 3; j++) {
        const float *c = cfa + j * E;
        float *restrict as = asq + j * E, *restrict bs = bsq + j * E;
        for (int i = 3; i < E - 3; i++) {
            float p = (c[i - 3 * a] - c[i - a] - c[i + a] + c[i + 3 * a]) - 3 * (c[i - 2 * a] + c[i + 2 * a]) + 6 * c[i];
            float q = (c[i - 3 * b] - c[i - b] - c[i + b] + c[i + 3 * b]) - 3 * (c[i - 2 * b] + c[i + 2 * b]) + 6 * c[i];
            as[i] = p * p;
            bs[i] = q * q;
        }
    }
    for (int j = 4; j < E - 4; j++) {
        const float *as = asq + j * E, *bs = bsq + j * E;
        float *restrict s = share + j * E;
        for (int i = 4; i < E - 4; i++) {
            float p = eps2 + as[i - a] + as[i] + as[i + a];
            float q = eps2 + bs[i - b] + bs[i] + bs[i + b];
            s[i] = p / (p + q);
        }
    }
}

static void setup(const lw_bayer *b, rcd_tile_t *t) {
    for (int py = 0; py < 2; py++)
        for (int i = 0; i < E; i++) {
            int k = py * 2 + (i & 1), here = b->colour[k];
            t->black[py][i] = b->black[k];
            t->scale[py][i] = b->scale[k];
            t->isg[py][i] = here == 1;
            t->isr[py][i] = here == 0;
            t->isb[py][i] = here == 2;
        }
}

static inline __attribute__((always_inline))
void tile_body(const lw_bayer *b, int x0, int y0, rcd_tile_t *restrict t, uint16_t *out) {
    const int W = b->width, H = b->height;
    setup(b, t);

    // 1. The normalised mosaic, mirrored at the image edges.
    lw_bayer_load(b, x0, y0, M, E, t->black[0], t->scale[0], t->cfa);

    // 2. Direction: the share of the high-pass energy down the columns (against along the rows) (inset 4).
    //    vh → 1: the picture changes down the columns, so interpolate along the row.
    directional_share(t->cfa, t->vsq, t->hsq, t->vh, E, 1);

    // 3. The low-pass mosaic: a 3×3 binomial (4× its mean) mixing every colour in fixed shares at every site (inset 1).
    for (int j = 1; j < E - 1; j++) {
        const float *c = t->cfa + j * E;
        float *restrict lp = t->lpf + j * E;
        for (int i = 1; i < E - 1; i++)
            lp[i] = c[i] + 0.5f * (c[i - E] + c[i + E] + c[i - 1] + c[i + 1]) +
                    0.25f * (c[i - E - 1] + c[i - E + 1] + c[i + E - 1] + c[i + E + 1]);
    }

    // 4. Green at red and blue sites (inset 5): each neighbour's green times the low-pass ratio between the pixel
    //    and the neighbour's side, the two sides weighted by the other's gradient, the two directions by vh.
    for (int j = 5; j < E - 5; j++) {
        const float *c = t->cfa + j * E, *lp = t->lpf + j * E, *vh = t->vh + j * E, *gm = t->isg[j & 1];
        float *restrict g = t->g + j * E, *restrict vd = t->vhd + j * E;
        for (int i = 5; i < E - 5; i++) {
            const int n = -E, s = E, w = -1, e = 1;
#define GRAD(d) (eps + absf(c[i + (d)] - c[i - (d)]) + absf(c[i] - c[i + 2 * (d)]) + \
                 absf(c[i + (d)] - c[i + 3 * (d)]) + absf(c[i + 2 * (d)] - c[i + 4 * (d)]))
#define EST(d) (c[i + (d)] * (lp[i] + lp[i]) / (eps + lp[i] + lp[i + 2 * (d)]))
            float gn = GRAD(n), gs = GRAD(s), gw = GRAD(w), ge = GRAD(e);
            float ver = (gs * EST(n) + gn * EST(s)) / (gn + gs);
            float hor = (ge * EST(w) + gw * EST(e)) / (gw + ge);
#undef GRAD
#undef EST
            float d = decided(vh[i], 0.25f * (vh[i - E - 1] + vh[i - E + 1] + vh[i + E - 1] + vh[i + E + 1]));
            vd[i] = d;
            g[i] = gm[i] != 0 ? c[i] : clamp01(ver + d * (hor - ver));
        }
    }

    // 5. Diagonal direction, as step 2 along the diagonals (inset 4), refined with the four row/column neighbours
    //    (inset 5). pq → 1: the picture changes along NW–SE, so interpolate along NE–SW.
    directional_share(t->cfa, t->vsq, t->hsq, t->pq, E + 1, E - 1);
    for (int j = 5; j < E - 5; j++) {
        const float *pq = t->pq + j * E;
        float *restrict pd = t->pqd + j * E;
        for (int i = 5; i < E - 5; i++) pd[i] = decided(pq[i], 0.25f * (pq[i - E] + pq[i + E] + pq[i - 1] + pq[i + 1]));
    }

    // 6. Blue at red sites and red at blue sites (inset 7): the diagonal neighbours (the other colour's sites)
    //    give colour differences to green, weighted by gradients, the two diagonals by pq. Red and blue keep
    //    their own sites' mosaic.
    for (int j = 7; j < E - 7; j++) {
        const float *c = t->cfa + j * E, *g = t->g + j * E, *pd = t->pqd + j * E;
        const float *mr = t->isr[j & 1], *mb = t->isb[j & 1];
        float *restrict r = t->r + j * E, *restrict bb = t->b + j * E;
        for (int i = 7; i < E - 7; i++) {
            const int nw = -E - 1, se = E + 1, ne = -E + 1, sw = E - 1;
#define GRAD(d) (eps + absf(c[i + (d)] - c[i - (d)]) + absf(c[i + (d)] - c[i + 3 * (d)]) + absf(g[i] - g[i + 2 * (d)]))
#define DIFF(d) (c[i + (d)] - g[i + (d)])
            float gnw = GRAD(nw), gse = GRAD(se), gne = GRAD(ne), gsw = GRAD(sw);
            float p = (gse * DIFF(nw) + gnw * DIFF(se)) / (gnw + gse);
            float q = (gsw * DIFF(ne) + gne * DIFF(sw)) / (gne + gsw);
#undef GRAD
#undef DIFF
            float other = clamp01(g[i] + p + pd[i] * (q - p));
            r[i] = mr[i] != 0 ? c[i] : other;
            bb[i] = mb[i] != 0 ? c[i] : other;
        }
    }

    // 7. Red and blue at green sites from the row and column neighbours' colour differences, the directions by
    //    vh (inset 10: M); then every output pixel.
    int tw = W - x0 < LW_RCD_TILE ? W - x0 : LW_RCD_TILE;
    int th = H - y0 < LW_RCD_TILE ? H - y0 : LW_RCD_TILE;
    for (int j = M; j < M + th; j++) {
        const float *g = t->g + j * E, *r = t->r + j * E, *bb = t->b + j * E, *vd = t->vhd + j * E;
        const float *gm = t->isg[j & 1];
        uint16_t *restrict dst = out + ((size_t)(j - M) * W + x0) * 4;   // out is the tile's first row
        for (int i = M; i < M + tw; i++) {
            const int n = -E, s = E, w = -1, e = 1;
#define GRAD(X, d) (eps + absf(X[i + (d)] - X[i - (d)]) + absf(X[i + (d)] - X[i + 3 * (d)]) + absf(g[i] - g[i + 2 * (d)]))
#define DIFF(X, d) (X[i + (d)] - g[i + (d)])
#define FILL(X, out) {                                                                                            \
                float gn = GRAD(X, n), gs = GRAD(X, s), gw = GRAD(X, w), ge = GRAD(X, e);                         \
                float ver = (gs * DIFF(X, n) + gn * DIFF(X, s)) / (gn + gs);                                      \
                float hor = (ge * DIFF(X, w) + gw * DIFF(X, e)) / (gw + ge);                                      \
                out = clamp01(g[i] + ver + vd[i] * (hor - ver));                                                  \
            }
            float rg, bg;
            FILL(r, rg)
            FILL(bb, bg)
#undef FILL
#undef GRAD
#undef DIFF
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
