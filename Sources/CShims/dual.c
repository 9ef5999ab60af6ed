// Dual demosaic of a 2×2 Bayer mosaic: LightWork's RCD (rcd.c, steps 1-7 unchanged but for step 4's direction) for
// smooth and gently detailed areas, and in fine texture a second estimate that keeps each site's own mosaic value and
// takes the other two colours from a median of RCD's colour differences around it. Near and past Nyquist RCD's
// colour differences turn into false-colour patterns; their median (9 taps in rows, then in columns) is the colour
// the texture really has (zero on a grey zone plate or line pattern, the majority's on a colour edge), and the mosaic
// value itself carries the detail RCD's interpolation lost. The two estimates are mixed by the local gradient energy
// of RCD's green, so flat areas keep RCD's lower noise. RCD's direction filter vanishes on stripes 2 pixels apart,
// so where it is undecided a test of adjacent-pixel differences (step 3b) decides instead.
// Every loop is branch-free over whole rows so that it vectorises; the same C is built for AVX2 and for baseline
// x86-64 without FMA, so both give the same bytes.
#include "lw_demosaic.h"
#include "lw_cpu.h"
#include "bayer_tile.h"

#define R 10                             // RCD's own margin: the widest chain of its neighbour reads (see each step's inset)
#define K 4                              // radius of the colour-difference median (9 taps in rows, then in columns)
#define M (R + K)                        // tile margin
#define E (LW_DUAL_TILE + 2 * M)          // extended tile edge
#define A (E * E)

typedef struct {
    float cfa[A];
    float vsq[A], hsq[A];                // squared high-pass response down columns and along rows (then diagonals)
    float vh[A], pq[A];                  // share of the energy that is vertical (vh) or along the NW–SE diagonal (pq)
    float vhd[A], pqd[A];                // the same, refined with the neighbours when they are more decided
    float lpf[A];                        // low-pass mosaic, for the ratio correction
    float g[A], r[A], b[A];
    float cr[A], cb[A];                  // RCD's red and blue minus green at every site (inset R)
    // Per row parity: black, scale and masks of the site's colour at each column.
    float black[2][E], scale[2][E], isg[2][E], isr[2][E], isb[2][E];
} dual_tile_t;

size_t lw_dual_scratch_bytes(void) { return sizeof(dual_tile_t); }

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

// Gradient energy of green at which the mixing weight is one half: well above the sensor noise's, well below an edge's.
static const float texture2 = 0.1f * 0.1f;

#define CE(a, b) { float lo_ = a < b ? a : b, hi_ = a < b ? b : a; a = lo_; b = hi_; }
// The median of nine values by a fixed exchange network (min/max only, so exact on every path).
static inline float median9(float p0, float p1, float p2, float p3, float p4, float p5, float p6, float p7, float p8) {
    CE(p1, p2) CE(p4, p5) CE(p7, p8) CE(p0, p1) CE(p3, p4) CE(p6, p7) CE(p1, p2) CE(p4, p5) CE(p7, p8)
    CE(p0, p3) CE(p5, p8) CE(p4, p7) CE(p3, p6) CE(p1, p4) CE(p2, p5) CE(p4, p7) CE(p4, p2) CE(p6, p4) CE(p4, p2)
    return p4;
}
#undef CE

// The 9-tap median of src along stride s into dst, for rows j0…j1 and columns i0…i1 (half-open).
static inline __attribute__((always_inline))
void median_along(const float *src, float *restrict dst, int s, int j0, int j1, int i0, int i1) {
    for (int j = j0; j < j1; j++) {
        const float *p = src + j * E;
        float *restrict d = dst + j * E;
        for (int i = i0; i < i1; i++)
            d[i] = median9(p[i - 4 * s], p[i - 3 * s], p[i - 2 * s], p[i - s], p[i], p[i + s], p[i + 2 * s], p[i + 3 * s], p[i + 4 * s]);
    }
}

static void setup(const lw_bayer *b, dual_tile_t *t) {
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
void tile_body(const lw_bayer *b, int x0, int y0, dual_tile_t *restrict t, uint16_t *out) {
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

    // 3b. A second direction test that Nyquist texture does not blind (step 2's filter vanishes on a period of 2
    //     pixels): adjacent-pixel differences along rows and down columns, four pairs along and weights 1 2 2 2 1
    //     across, so both row (column) parities count alike and a flat colour gives the same sum both ways. Its share
    //     down the columns goes into pq (free until step 5); vsq, hsq and pqd are scratch.
    for (int j = 3; j < E - 2; j++) {
        const float *c = t->cfa + j * E;
        float *restrict dh = t->pq + j * E, *restrict dv = t->pqd + j * E;
        for (int i = 3; i < E - 2; i++) {
            dh[i] = absf(c[i] - c[i + 1]);
            dv[i] = absf(c[i] - c[i + E]);
        }
    }
    for (int j = 3; j < E - 2; j++) {
        const float *dh = t->pq + j * E, *dv = t->pqd + j * E;
        float *restrict h = t->vsq + j * E, *restrict v = t->hsq + j * E;
        for (int i = 5; i < E - 5; i++) {
            h[i] = dh[i - 2] + dh[i - 1] + dh[i] + dh[i + 1];
            v[i] = dv[i - 2] + 2 * (dv[i - 1] + dv[i] + dv[i + 1]) + dv[i + 2];
        }
    }
    for (int j = 5; j < E - 5; j++) {
        const float *h = t->vsq + j * E, *v = t->hsq + j * E;
        float *restrict nq = t->pq + j * E;
        for (int i = 5; i < E - 5; i++) {
            float hh = h[i - 2 * E] + 2 * (h[i - E] + h[i] + h[i + E]) + h[i + 2 * E];
            float vv = v[i - 2 * E] + v[i - E] + v[i] + v[i + E];
            nq[i] = (vv + eps2) / (vv + hh + eps2 + eps2);
        }
    }

    // 4. Green at red and blue sites (inset 5): each neighbour's green times the low-pass ratio between the pixel
    //    and the neighbour's side, the two sides weighted by the other's gradient, the two directions by vh; where
    //    vh is undecided and step 3b decided, 3b's share takes over (on stripes 2 pixels apart step 2 sees nothing).
    for (int j = 5; j < E - 5; j++) {
        const float *c = t->cfa + j * E, *lp = t->lpf + j * E, *vh = t->vh + j * E, *nq = t->pq + j * E, *gm = t->isg[j & 1];
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
            float trust = 4 * (1.0f - absf(d + d - 1.0f)) * absf(nq[i] + nq[i] - 1.0f);   // undecided × decided
            d = d + (trust < 1 ? trust : 1.0f) * (nq[i] - d);
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
    //    vh (inset R), kept as differences to green at every site.
    for (int j = R; j < E - R; j++) {
        const float *g = t->g + j * E, *r = t->r + j * E, *bb = t->b + j * E, *vd = t->vhd + j * E;
        const float *gm = t->isg[j & 1];
        float *restrict cr = t->cr + j * E, *restrict cb = t->cb + j * E;
        for (int i = R; i < E - R; i++) {
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
            cr[i] = (green != 0 ? rg : r[i]) - g[i];
            cb[i] = (green != 0 ? bg : bb[i]) - g[i];
        }
    }

    // 8. The colour differences' median, along rows (inset R in rows, M in columns) then columns (inset M), into
    //    r and b (free now); vsq serves as the rows' result.
    int tw = W - x0 < LW_DUAL_TILE ? W - x0 : LW_DUAL_TILE;
    int th = H - y0 < LW_DUAL_TILE ? H - y0 : LW_DUAL_TILE;
    median_along(t->cr, t->vsq, 1, R, E - R, M, E - M);
    median_along(t->vsq, t->r, E, M, E - M, M, E - M);
    median_along(t->cb, t->vsq, 1, R, E - R, M, E - M);
    median_along(t->vsq, t->b, E, M, E - M, M, E - M);

    // 9. Texture: green's squared central differences, summed over 5 × 5 (inset M), in hsq (via lpf).
    for (int j = M - 2; j < E - M + 2; j++) {
        const float *g = t->g + j * E;
        float *restrict q = t->hsq + j * E;
        for (int i = M - 2; i < E - M + 2; i++) {
            float dx = g[i + 1] - g[i - 1], dy = g[i + E] - g[i - E];
            q[i] = dx * dx + dy * dy;
        }
    }
    for (int j = M - 2; j < E - M + 2; j++) {
        const float *q = t->hsq + j * E;
        float *restrict s = t->lpf + j * E;
        for (int i = M; i < E - M; i++) s[i] = q[i - 2] + q[i - 1] + q[i] + q[i + 1] + q[i + 2];
    }
    for (int j = M; j < E - M; j++) {
        const float *s = t->lpf + j * E;
        float *restrict q = t->hsq + j * E;
        for (int i = M; i < E - M; i++) q[i] = (s[i - 2 * E] + s[i - E] + s[i] + s[i + E] + s[i + 2 * E]) * (1.0f / 25);
    }

    // 10. Every output pixel: RCD's estimate mixed towards the mosaic-own one by the texture weight.
    for (int j = M; j < M + th; j++) {
        const float *c = t->cfa + j * E, *g = t->g + j * E, *cr = t->cr + j * E, *cb = t->cb + j * E;
        const float *mr = t->r + j * E, *mb = t->b + j * E, *tx = t->hsq + j * E;
        const float *gm = t->isg[j & 1], *rm = t->isr[j & 1];
        uint16_t *restrict dst = out + ((size_t)(j - M) * W + x0) * 4;   // out is the tile's first row
        for (int i = M; i < M + tw; i++) {
            float own = gm[i] != 0 ? 0 : (rm[i] != 0 ? mr[i] : mb[i]);   // the site's colour minus green, by the median
            float gm2 = clamp01(c[i] - own);
            float r2 = clamp01(gm2 + mr[i]), b2 = clamp01(gm2 + mb[i]);
            float w = tx[i] / (tx[i] + texture2);
            float g1 = g[i], r1 = g[i] + cr[i], b1 = g[i] + cb[i];
            float rv = clamp01(r1 + w * (r2 - r1)), gv = clamp01(g1 + w * (gm2 - g1)), bv = clamp01(b1 + w * (b2 - b1));
            uint16_t *px = dst + 4 * (i - M);
            px[0] = (uint16_t)(rv * 65535.0f + 0.5f);
            px[1] = (uint16_t)(gv * 65535.0f + 0.5f);
            px[2] = (uint16_t)(bv * 65535.0f + 0.5f);
            px[3] = 0;
        }
    }
}

__attribute__((target("avx2")))
static void tile_avx2(const lw_bayer *b, int x0, int y0, dual_tile_t *t, uint16_t *out) { tile_body(b, x0, y0, t, out); }
static void tile_base(const lw_bayer *b, int x0, int y0, dual_tile_t *t, uint16_t *out) { tile_body(b, x0, y0, t, out); }

void lw_dual_tile(const lw_bayer *b, int x0, int y0, void *scratch, uint16_t *out) {
    if (lw_cpu_avx2()) tile_avx2(b, x0, y0, scratch, out);
    else tile_base(b, x0, y0, scratch, out);
}
