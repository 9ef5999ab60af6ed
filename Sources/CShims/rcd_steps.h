// The steps RCD (`rcd.c`) and the dual demosaic (`dual.c`) share, written once: each file defines E (its extended
// tile edge) before including this, and calls the steps on its own tile's planes. Every loop is branch-free over
// whole rows so that it vectorises; the callers build the same C for AVX2 and for baseline x86-64 without FMA.
#ifndef LW_RCD_STEPS_H
#define LW_RCD_STEPS_H
#include "lw_demosaic.h"

#ifndef E
#error "define E, the extended tile edge, before including rcd_steps.h"
#endif

static const float eps = 1e-5f, eps2 = 1e-10f;

static inline float clamp01(float v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }
static inline float absf(float v) { return v < 0 ? -v : v; }
// The value of the estimate the more decided of a pixel's own share and its neighbours' mean points to.
static inline float decided(float own, float around) { return absf(0.5f - own) < absf(0.5f - around) ? around : own; }

// Per row parity: black, scale and masks of the site's colour at each column of the extended tile.
typedef struct { float black[2][E], scale[2][E], isg[2][E], isr[2][E], isb[2][E]; } rcd_sites_t;

static void rcd_setup(const lw_bayer *b, rcd_sites_t *s) {
    for (int py = 0; py < 2; py++)
        for (int i = 0; i < E; i++) {
            int k = py * 2 + (i & 1), here = b->colour[k];
            s->black[py][i] = b->black[k];
            s->scale[py][i] = b->scale[k];
            s->isg[py][i] = here == 1;
            s->isr[py][i] = here == 0;
            s->isb[py][i] = here == 2;
        }
}

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

// Step 3, the low-pass mosaic: a 3×3 binomial (4× its mean) mixing every colour in fixed shares at every site (inset 1).
static inline __attribute__((always_inline))
void rcd_lowpass(const float *cfa, float *restrict lpf) {
    for (int j = 1; j < E - 1; j++) {
        const float *c = cfa + j * E;
        float *restrict lp = lpf + j * E;
        for (int i = 1; i < E - 1; i++)
            lp[i] = c[i] + 0.5f * (c[i - E] + c[i + E] + c[i - 1] + c[i + 1]) +
                    0.25f * (c[i - E - 1] + c[i - E + 1] + c[i + E - 1] + c[i + E + 1]);
    }
}

// Step 4, green at red and blue sites (inset 5): each neighbour's green times the low-pass ratio between the pixel
// and the neighbour's side, the two sides weighted by the other's gradient, the two directions by vh refined with
// its diagonal neighbours (into vhd). With `second` (the dual demosaic's second direction test, which Nyquist texture does not
// not blind, nonzero `use_second`), that share takes over where vh is undecided and it is decided.
static inline __attribute__((always_inline))
void rcd_green(const float *cfa, const float *lpf, const float *vhs, const float *second, const int use_second,
               const rcd_sites_t *sites, float *restrict green, float *restrict vhd) {
    for (int j = 5; j < E - 5; j++) {
        const float *c = cfa + j * E, *lp = lpf + j * E, *vh = vhs + j * E, *nq = second + j * E, *gm = sites->isg[j & 1];
        float *restrict g = green + j * E, *restrict vd = vhd + j * E;
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
            if (use_second) {
                float trust = 4 * (1.0f - absf(d + d - 1.0f)) * absf(nq[i] + nq[i] - 1.0f);   // undecided × decided
                d = d + (trust < 1 ? trust : 1.0f) * (nq[i] - d);
            }
            vd[i] = d;
            g[i] = gm[i] != 0 ? c[i] : clamp01(ver + d * (hor - ver));
        }
    }
}

// Steps 5 and 6: the diagonal direction, as step 2 along the diagonals (inset 4), refined with the four row/column
// neighbours (inset 5; pq → 1: the picture changes along NW–SE, so interpolate along NE–SW); then blue at red sites
// and red at blue sites (inset 7) from the diagonal neighbours' colour differences to green, weighted by gradients,
// the two diagonals by pq. Red and blue keep their own sites' mosaic. asq and bsq are scratch.
static inline __attribute__((always_inline))
void rcd_diagonals(const float *cfa, const float *green, const rcd_sites_t *sites, float *restrict asq, float *restrict bsq,
                   float *restrict pqs, float *restrict pqd, float *restrict red, float *restrict blue) {
    directional_share(cfa, asq, bsq, pqs, E + 1, E - 1);
    for (int j = 5; j < E - 5; j++) {
        const float *pq = pqs + j * E;
        float *restrict pd = pqd + j * E;
        for (int i = 5; i < E - 5; i++) pd[i] = decided(pq[i], 0.25f * (pq[i - E] + pq[i + E] + pq[i - 1] + pq[i + 1]));
    }
    for (int j = 7; j < E - 7; j++) {
        const float *c = cfa + j * E, *g = green + j * E, *pd = pqd + j * E;
        const float *mr = sites->isr[j & 1], *mb = sites->isb[j & 1];
        float *restrict r = red + j * E, *restrict bb = blue + j * E;
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
}

// Step 7's estimate at one pixel i of a row: red or blue (X) at a green site from the row and column neighbours'
// colour differences, the directions by vd, clipped (g, X, vd point at the row).
#define RCD_FILL(X, out) {                                                                                       \
        const int n_ = -E, s_ = E, w_ = -1, e_ = 1;                                                              \
        float gn_ = eps + absf(X[i + n_] - X[i - n_]) + absf(X[i + n_] - X[i + 3 * n_]) + absf(g[i] - g[i + 2 * n_]); \
        float gs_ = eps + absf(X[i + s_] - X[i - s_]) + absf(X[i + s_] - X[i + 3 * s_]) + absf(g[i] - g[i + 2 * s_]); \
        float gw_ = eps + absf(X[i + w_] - X[i - w_]) + absf(X[i + w_] - X[i + 3 * w_]) + absf(g[i] - g[i + 2 * w_]); \
        float ge_ = eps + absf(X[i + e_] - X[i - e_]) + absf(X[i + e_] - X[i + 3 * e_]) + absf(g[i] - g[i + 2 * e_]); \
        float ver_ = (gs_ * (X[i + n_] - g[i + n_]) + gn_ * (X[i + s_] - g[i + s_])) / (gn_ + gs_);              \
        float hor_ = (ge_ * (X[i + w_] - g[i + w_]) + gw_ * (X[i + e_] - g[i + e_])) / (gw_ + ge_);              \
        out = clamp01(g[i] + ver_ + vd[i] * (hor_ - ver_));                                                      \
    }

#endif
