// Dual demosaic of a 2×2 Bayer mosaic: LightWork's RCD (its steps shared with rcd.c in rcd_steps.h, step 4 given a second direction test) for
// smooth and gently detailed areas, and in fine texture a second estimate that keeps each site's own mosaic value and
// takes the other two colours from a median of RCD's colour differences around it. Near and past Nyquist RCD's
// colour differences turn into false-colour patterns; their median (9 taps in rows, then in columns) is the colour
// the texture really has (zero on a grey zone plate or line pattern, the majority's on a colour edge), and the mosaic
// value itself carries the detail RCD's interpolation lost. The two estimates are mixed by periodic-texture energy
// (step 8: where RCD's green zigzags on both sides of a pixel), so edges, lone lines, noise and flat areas keep RCD's
// values, and a tile with none skips the second estimate. RCD's direction filter vanishes on stripes 2 pixels
// apart, so where it is undecided a test of adjacent-pixel differences (step 3b) decides instead.
// Every loop is branch-free over whole rows so that it vectorises (the one branch, per tile, picks whether the
// second estimate runs); the same C is built for AVX2 and for baseline x86-64 without FMA, so both give the same bytes.
#include "lw_demosaic.h"
#include "lw_cpu.h"
#include "bayer_tile.h"

#define R 10                             // RCD's own margin: the widest chain of its neighbour reads (see each step's inset)
#define K 4                              // radius of the colour-difference median (9 taps in rows, then in columns)
#define M (R + K)                        // tile margin
#define E (LW_DUAL_TILE + 2 * M)          // extended tile edge
#define A (E * E)

#include "rcd_steps.h"

typedef struct {
    float cfa[A];
    float vsq[A], hsq[A];                // squared high-pass response down columns and along rows (then diagonals)
    float vh[A], pq[A];                  // share of the energy that is vertical (vh) or along the NW–SE diagonal (pq)
    float vhd[A], pqd[A];                // the same, refined with the neighbours when they are more decided
    float lpf[A];                        // low-pass mosaic, for the ratio correction
    float g[A], r[A], b[A];
    float cr[A], cb[A];                  // RCD's red and blue minus green at every site (inset R)
    rcd_sites_t sites;
} dual_tile_t;

size_t lw_dual_scratch_bytes(void) { return sizeof(dual_tile_t); }

// Periodic texture's zigzag energy (step 8): what sensor noise gives at most (weight exactly 0 below it), and the
// excess at which the mixing weight is one half (a pattern of about 0.04 in amplitude).
static const float zigzag_noise = 1e-3f, zigzag_half = 3e-3f;

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

// Two neighbouring 9-tap medians share eight values. With those eight as two sorted fours a and b, their 4th and
// 5th smallest are lo = max over i + j = 3 of min(a_i, b_j) and hi = min of the max; each median is then its own
// ninth value clamped to [lo, hi]. Min/max only, so the same value as median9 (measured 2× fewer operations).
#define SORT4(a0, a1, a2, a3) CE(a0, a1) CE(a2, a3) CE(a0, a2) CE(a1, a3) CE(a1, a2)
#define CE(a, b) { float lo_ = a < b ? a : b, hi_ = a < b ? b : a; a = lo_; b = hi_; }
static inline __attribute__((always_inline))
void median_pair(float a0, float a1, float a2, float a3, float b0, float b1, float b2, float b3, float x, float y,
                 float *mx, float *my) {
    SORT4(a0, a1, a2, a3)
    SORT4(b0, b1, b2, b3)
    float l0 = a0 < b3 ? a0 : b3, l1 = a1 < b2 ? a1 : b2, l2 = a2 < b1 ? a2 : b1, l3 = a3 < b0 ? a3 : b0;
    float h0 = a0 < b3 ? b3 : a0, h1 = a1 < b2 ? b2 : a1, h2 = a2 < b1 ? b1 : a2, h3 = a3 < b0 ? b0 : a3;
    float la = l0 < l1 ? l1 : l0, lb = l2 < l3 ? l3 : l2, lo = la < lb ? lb : la;
    float ha = h0 < h1 ? h0 : h1, hb = h2 < h3 ? h2 : h3, hi = ha < hb ? ha : hb;
    float cx = x < lo ? lo : x, cy = y < lo ? lo : y;
    *mx = cx < hi ? cx : hi;
    *my = cy < hi ? cy : hi;
}
#undef CE
#undef SORT4

// median_along down columns (stride E), two rows at a time; an odd last row by median9.
static inline __attribute__((always_inline))
void median_columns(const float *src, float *restrict dst, int j0, int j1, int i0, int i1) {
    int j = j0;
    for (; j + 1 < j1; j += 2) {
        const float *p = src + j * E;
        float *restrict d0 = dst + j * E, *restrict d1 = d0 + E;
        for (int i = i0; i < i1; i++)
            median_pair(p[i - 3 * E], p[i - 2 * E], p[i - E], p[i], p[i + E], p[i + 2 * E], p[i + 3 * E], p[i + 4 * E],
                        p[i - 4 * E], p[i + 5 * E], d0 + i, d1 + i);
    }
    if (j < j1) median_along(src, dst, E, j, j1, i0, i1);
}

// median_along along rows (stride 1), two columns at a time: each row split into its even and odd samples so the
// pairs (2k, 2k + 1) run as contiguous vectors, then interleaved back. i0 and i1 must be even, i0 ≥ 4.
static inline __attribute__((always_inline))
void median_rows(const float *src, float *restrict dst, int j0, int j1, int i0, int i1) {
    float ev[E / 2 + 4], od[E / 2 + 4], me[E / 2 + 4], mo[E / 2 + 4];
    const int k0 = i0 / 2, k1 = i1 / 2;
    for (int j = j0; j < j1; j++) {
        const float *p = src + j * E;
        float *restrict d = dst + j * E;
        for (int k = k0 - 2; k < k1 + 2; k++) { ev[k] = p[2 * k]; od[k] = p[2 * k + 1]; }
        for (int k = k0; k < k1; k++)
            median_pair(od[k - 2], ev[k - 1], od[k - 1], ev[k], od[k], ev[k + 1], od[k + 1], ev[k + 2], ev[k - 2], od[k + 2],
                        me + k, mo + k);
        for (int k = k0; k < k1; k++) { d[2 * k] = me[k]; d[2 * k + 1] = mo[k]; }
    }
}

// 10. Every output pixel: RCD's estimate mixed towards the mosaic-own one by the texture weight (mix = 0: RCD's
//     alone, the same bits as a weight of 0).
static inline __attribute__((always_inline))
void write_rows(const dual_tile_t *restrict t, int W, int x0, int tw, int th, int mix, uint16_t *out) {
    for (int j = M; j < M + th; j++) {
        const float *c = t->cfa + j * E, *g = t->g + j * E, *cr = t->cr + j * E, *cb = t->cb + j * E;
        const float *mr = t->r + j * E, *mb = t->b + j * E, *tx = t->hsq + j * E;
        const float *gm = t->sites.isg[j & 1], *rm = t->sites.isr[j & 1];
        uint16_t *restrict dst = out + ((size_t)(j - M) * W + x0) * 4;   // out is the tile's first row
        for (int i = M; i < M + tw; i++) {
            float g1 = g[i], r1 = g[i] + cr[i], b1 = g[i] + cb[i];
            float rv = clamp01(r1), gv = clamp01(g1), bv = clamp01(b1);
            if (mix) {
                // The site's colour minus green, by the median: every operand loaded first, so the choice is a
                // select and the loop vectorises (conditional loads kept it scalar, a quarter of dual's time on noise).
                float vr = mr[i], vb = mb[i], site = rm[i] != 0 ? vr : vb;
                float own = gm[i] != 0 ? 0.0f : site;
                float gm2 = clamp01(c[i] - own);
                float r2 = clamp01(gm2 + vr), b2 = clamp01(gm2 + vb);
                float w = tx[i];
                rv = clamp01(r1 + w * (r2 - r1)), gv = clamp01(g1 + w * (gm2 - g1)), bv = clamp01(b1 + w * (b2 - b1));
            }
            uint16_t *px = dst + 4 * (i - M);
            px[0] = (uint16_t)(rv * 65535.0f + 0.5f);
            px[1] = (uint16_t)(gv * 65535.0f + 0.5f);
            px[2] = (uint16_t)(bv * 65535.0f + 0.5f);
            px[3] = 0;
        }
    }
}

static inline __attribute__((always_inline))
void tile_body(const lw_bayer *b, int x0, int y0, dual_tile_t *restrict t, uint16_t *out) {
    const int W = b->width, H = b->height;
    rcd_setup(b, &t->sites);

    // 1. The normalised mosaic, mirrored at the image edges.
    lw_bayer_load(b, x0, y0, M, E, t->sites.black[0], t->sites.scale[0], t->cfa);

    // 2. Direction: the share of the high-pass energy down the columns (against along the rows) (inset 4).
    //    vh → 1: the picture changes down the columns, so interpolate along the row.
    directional_share(t->cfa, t->vsq, t->hsq, t->vh, E, 1);

    // 3. The low-pass mosaic (rcd_steps.h).
    rcd_lowpass(t->cfa, t->lpf);

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

    // 4. Green at red and blue sites (rcd_steps.h); where vh is undecided and step 3b decided, 3b's share (pq)
    //    takes over (on stripes 2 pixels apart step 2 sees nothing).
    rcd_green(t->cfa, t->lpf, t->vh, t->pq, 1, &t->sites, t->g, t->vhd);

    // 5–6. The diagonal direction, then red and blue at each other's sites (rcd_steps.h).
    rcd_diagonals(t->cfa, t->g, &t->sites, t->vsq, t->hsq, t->pq, t->pqd, t->r, t->b);

    // 7. Red and blue at green sites from the row and column neighbours' colour differences, the directions by
    //    vh (inset R), kept as differences to green at every site.
    for (int j = R; j < E - R; j++) {
        const float *g = t->g + j * E, *r = t->r + j * E, *bb = t->b + j * E, *vd = t->vhd + j * E;
        const float *gm = t->sites.isg[j & 1];
        float *restrict cr = t->cr + j * E, *restrict cb = t->cb + j * E;
        for (int i = R; i < E - R; i++) {
            float rg, bg;
            RCD_FILL(r, rg)
            RCD_FILL(bb, bg)
            float green = gm[i] != 0;
            cr[i] = (green != 0 ? rg : r[i]) - g[i];
            cb[i] = (green != 0 ? bg : bb[i]) - g[i];
        }
    }

    int tw = W - x0 < LW_DUAL_TILE ? W - x0 : LW_DUAL_TILE;
    int th = H - y0 < LW_DUAL_TILE ? H - y0 : LW_DUAL_TILE;

    // 8. Periodic texture: where RCD's green zigzags (each difference against the next of the opposite sign) on both
    //    sides of a pixel, along rows or down columns. A period of 2 to about 4 pixels (where red and blue, sampled
    //    every second pixel, alias) zigzags everywhere; an edge never does, and a lone thin line only at itself, so
    //    neither a contour nor a lens's colour fringe on one is touched. Zigzags along rows in pq, down columns in
    //    pqd (inset 8); both sides' three-pixel sums, the smaller taken, rows plus columns, in hsq (inset M - 2).
    for (int j = 8; j < E - 8; j++) {
        const float *g = t->g + j * E;
        float *restrict zh = t->pq + j * E, *restrict zv = t->pqd + j * E;
        for (int i = 8; i < E - 8; i++) {
            float h = -(g[i + 1] - g[i]) * (g[i] - g[i - 1]), v = -(g[i + E] - g[i]) * (g[i] - g[i - E]);
            zh[i] = h > 0 ? h : 0;
            zv[i] = v > 0 ? v : 0;
        }
    }
    for (int j = M - 2; j < E - M + 2; j++) {
        const float *zh = t->pq + j * E, *zv = t->pqd + j * E;
        float *restrict q = t->hsq + j * E;
        for (int i = M - 2; i < E - M + 2; i++) {
            float hl = zh[i - 3] + zh[i - 2] + zh[i - 1], hr = zh[i + 1] + zh[i + 2] + zh[i + 3];
            float vl = zv[i - 3 * E] + zv[i - 2 * E] + zv[i - E], vr = zv[i + E] + zv[i + 2 * E] + zv[i + 3 * E];
            q[i] = (hl < hr ? hl : hr) + (vl < vr ? vl : vr);
        }
    }
    // Summed over 5 × 5 (inset M), via lpf, then the weight, exactly 0 below the noise's own zigzag (hsq).
    for (int j = M - 2; j < E - M + 2; j++) {
        const float *q = t->hsq + j * E;
        float *restrict s = t->lpf + j * E;
        for (int i = M; i < E - M; i++) s[i] = q[i - 2] + q[i - 1] + q[i] + q[i + 1] + q[i + 2];
    }
    int textured = 0;
    for (int j = M; j < M + th; j++) {
        const float *s = t->lpf + j * E;
        float *restrict w = t->hsq + j * E;
        for (int i = M; i < M + tw; i++) {
            float q = (s[i - 2 * E] + s[i - E] + s[i] + s[i + E] + s[i + 2 * E]) * (1.0f / 25) - zigzag_noise;
            q = q > 0 ? q : 0;
            w[i] = q / (q + zigzag_half);
            textured |= q > 0;
        }
    }

    // 9. Only a tile with texture needs the second estimate; without, every weight is 0 and the output is RCD's.
    //    The colour differences' median, along rows (inset R in rows, M in columns) then columns (inset M), into
    //    r and b (free now); vsq serves as the rows' result.
    if (textured) {
        median_rows(t->cr, t->vsq, R, E - R, M, E - M);
        median_columns(t->vsq, t->r, M, E - M, M, E - M);
        median_rows(t->cb, t->vsq, R, E - R, M, E - M);
        median_columns(t->vsq, t->b, M, E - M, M, E - M);
        write_rows(t, W, x0, tw, th, 1, out);
    } else {
        write_rows(t, W, x0, tw, th, 0, out);
    }
}

__attribute__((target("avx2")))
static void tile_avx2(const lw_bayer *b, int x0, int y0, dual_tile_t *t, uint16_t *out) { tile_body(b, x0, y0, t, out); }
static void tile_base(const lw_bayer *b, int x0, int y0, dual_tile_t *t, uint16_t *out) { tile_body(b, x0, y0, t, out); }

void lw_dual_tile(const lw_bayer *b, int x0, int y0, void *scratch, uint16_t *out) {
    if (lw_cpu_avx2()) tile_avx2(b, x0, y0, scratch, out);
    else tile_base(b, x0, y0, scratch, out);
}
