// Adaptive homogeneity-directed (AHD) demosaic of a 2×2 Bayer mosaic, written from Hirakawa & Parks,
// "Adaptive homogeneity-directed demosaicing algorithm", IEEE Trans. Image Processing 14(3), 2005:
// interpolate green along rows and along columns, fill red and blue by colour differences in each, measure in
// CIE Lab how homogeneous each candidate is around every pixel, and keep the more homogeneous one.
// One tile at a time in float, every loop branch-free over whole rows so that it vectorises; the same C is
// built for AVX2 and for baseline x86-64 without FMA, so both give the same bytes.
#include "lw_demosaic.h"
#include "lw_cpu.h"
#include "lab_f.h"
#include "bayer_tile.h"
#include <string.h>

#define M 6                              // tile margin: window 1 + homogeneity 1 + Lab/RGB 1 + green 1 + mosaic 2
#define E (LW_AHD_TILE + 2 * M)          // extended tile edge
#define A (E * E)

typedef struct {
    float cfa[A];
    float g[2][A];                       // green along rows (0) and along columns (1)
    float diff[A];                       // mosaic minus green, for the direction in hand
    float rgb[2][3][A];
    float lab[2][3][A];
    float hd[A];                         // homogeneity along rows minus along columns
    float sum[A];
    // Per row parity: black, scale and green mask at each column, and the one-hot weights that build red and
    // blue from (own difference, row neighbours, column neighbours, diagonals).
    float black[2][E], scale[2][E], green[2][E], wr[2][4][E], wb[2][4][E];
} tile_t;

size_t lw_ahd_scratch_bytes(void) { return sizeof(tile_t); }

static inline float clamp01(float v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

static void setup(const lw_bayer *b, tile_t *t) {
    for (int py = 0; py < 2; py++)
        for (int i = 0; i < E; i++) {
            int px = i & 1, here = b->colour[py * 2 + px];
            int across = b->colour[py * 2 + (1 - px)], down = b->colour[(1 - py) * 2 + px];
            t->black[py][i] = b->black[py * 2 + px];
            t->scale[py][i] = b->scale[py * 2 + px];
            t->green[py][i] = here == 1;
            for (int k = 0; k < 4; k++) t->wr[py][k][i] = t->wb[py][k][i] = 0;
            // weights: 0 own difference, 1 row neighbours, 2 column neighbours, 3 diagonals
            if (here == 1) {
                t->wr[py][across == 0 ? 1 : 2][i] = 1;
                t->wb[py][across == 2 ? 1 : 2][i] = 1;
            } else if (here == 0) {
                t->wr[py][0][i] = 1;
                t->wb[py][3][i] = 1;
            } else {
                t->wb[py][0][i] = 1;
                t->wr[py][3][i] = 1;
            }
        }
}

static inline __attribute__((always_inline))
void tile_body(const lw_bayer *b, int x0, int y0, tile_t *restrict t, uint16_t *out) {
    const int W = b->width, H = b->height;
    setup(b, t);

    // 1. The normalised mosaic, mirrored at the image edges.
    lw_bayer_load(b, x0, y0, M, E, t->black[0], t->scale[0], t->cfa);

    // 2. Green at red and blue sites: neighbour mean plus a second-difference correction, limited to the neighbours.
    for (int j = 2; j < E - 2; j++) {
        const float *c = t->cfa + j * E, *gm = t->green[j & 1];
        float *restrict gh = t->g[0] + j * E, *restrict gv = t->g[1] + j * E;
        for (int i = 2; i < E - 2; i++) {
            float l = c[i - 1], r = c[i + 1], u = c[i - E], d = c[i + E];
            float h = (l + r) * 0.5f + (2 * c[i] - c[i - 2] - c[i + 2]) * 0.25f;
            float v = (u + d) * 0.5f + (2 * c[i] - c[i - 2 * E] - c[i + 2 * E]) * 0.25f;
            float hlo = l < r ? l : r, hhi = l < r ? r : l, vlo = u < d ? u : d, vhi = u < d ? d : u;
            h = h < hlo ? hlo : (h > hhi ? hhi : h);
            v = v < vlo ? vlo : (v > vhi ? vhi : v);
            gh[i] = gm[i] != 0 ? c[i] : h;
            gv[i] = gm[i] != 0 ? c[i] : v;
        }
    }

    // 3. Red and blue in each direction from colour differences to that direction's green; then Lab.
    const float *m = b->to_xyz;
    for (int d = 0; d < 2; d++) {
        for (int j = 2; j < E - 2; j++) {
            const float *c = t->cfa + j * E, *g = t->g[d] + j * E;
            float *restrict df = t->diff + j * E;
            for (int i = 2; i < E - 2; i++) df[i] = c[i] - g[i];
        }
        for (int j = 3; j < E - 3; j++) {
            const float *g = t->g[d] + j * E, *df = t->diff + j * E;
            const float *r0 = t->wr[j & 1][0], *r1 = t->wr[j & 1][1], *r2 = t->wr[j & 1][2], *r3 = t->wr[j & 1][3];
            const float *b0 = t->wb[j & 1][0], *b1 = t->wb[j & 1][1], *b2 = t->wb[j & 1][2], *b3 = t->wb[j & 1][3];
            float *restrict oR = t->rgb[d][0] + j * E, *restrict oG = t->rgb[d][1] + j * E, *restrict oB = t->rgb[d][2] + j * E;
            float *restrict L = t->lab[d][0] + j * E, *restrict La = t->lab[d][1] + j * E, *restrict Lb = t->lab[d][2] + j * E;
            for (int i = 3; i < E - 3; i++) {
                float gg = g[i], own = df[i];
                float dh = (df[i - 1] + df[i + 1]) * 0.5f;
                float dv = (df[i - E] + df[i + E]) * 0.5f;
                float dd = (df[i - E - 1] + df[i - E + 1] + df[i + E - 1] + df[i + E + 1]) * 0.25f;
                float r = clamp01(gg + (r0[i] * own + r1[i] * dh + r2[i] * dv + r3[i] * dd));
                float bl = clamp01(gg + (b0[i] * own + b1[i] * dh + b2[i] * dv + b3[i] * dd));
                float gn = clamp01(gg);
                oR[i] = r; oG[i] = gn; oB[i] = bl;
                float fx = lab_f(m[0] * r + m[1] * gn + m[2] * bl);
                float fy = lab_f(m[3] * r + m[4] * gn + m[5] * bl);
                float fz = lab_f(m[6] * r + m[7] * gn + m[8] * bl);
                L[i] = 116 * fy - 16;
                La[i] = 500 * (fx - fy);
                Lb[i] = 200 * (fy - fz);
            }
        }
    }

    // 4. Homogeneity: neighbours within the smaller of the two directions' spread, in lightness and in chroma.
    for (int j = 4; j < E - 4; j++) {
        const float *Lh = t->lab[0][0] + j * E, *ah = t->lab[0][1] + j * E, *bh = t->lab[0][2] + j * E;
        const float *Lv = t->lab[1][0] + j * E, *av = t->lab[1][1] + j * E, *bv = t->lab[1][2] + j * E;
        float *restrict hd = t->hd + j * E;
        for (int i = 4; i < E - 4; i++) {
#define DL(P, q) ((P)[i] - (P)[i + (q)] < 0 ? (P)[i + (q)] - (P)[i] : (P)[i] - (P)[i + (q)])
#define DC(a, b, q) (((a)[i] - (a)[i + (q)]) * ((a)[i] - (a)[i + (q)]) + ((b)[i] - (b)[i + (q)]) * ((b)[i] - (b)[i + (q)]))
            float lh0 = DL(Lh, -1), lh1 = DL(Lh, 1), lh2 = DL(Lh, -E), lh3 = DL(Lh, E);
            float lv0 = DL(Lv, -1), lv1 = DL(Lv, 1), lv2 = DL(Lv, -E), lv3 = DL(Lv, E);
            float ch0 = DC(ah, bh, -1), ch1 = DC(ah, bh, 1), ch2 = DC(ah, bh, -E), ch3 = DC(ah, bh, E);
            float cv0 = DC(av, bv, -1), cv1 = DC(av, bv, 1), cv2 = DC(av, bv, -E), cv3 = DC(av, bv, E);
#undef DL
#undef DC
            float a1 = lh0 > lh1 ? lh0 : lh1, a2 = lv2 > lv3 ? lv2 : lv3, epsL = a1 < a2 ? a1 : a2;
            float c1 = ch0 > ch1 ? ch0 : ch1, c2 = cv2 > cv3 ? cv2 : cv3, epsC = c1 < c2 ? c1 : c2;
            float nh = (float)(lh0 <= epsL && ch0 <= epsC) + (float)(lh1 <= epsL && ch1 <= epsC) +
                       (float)(lh2 <= epsL && ch2 <= epsC) + (float)(lh3 <= epsL && ch3 <= epsC);
            float nv = (float)(lv0 <= epsL && cv0 <= epsC) + (float)(lv1 <= epsL && cv1 <= epsC) +
                       (float)(lv2 <= epsL && cv2 <= epsC) + (float)(lv3 <= epsL && cv3 <= epsC);
            hd[i] = nh - nv;
        }
    }

    // 5. Per output pixel, the direction more homogeneous over its 3×3 neighbourhood, or the mean of both on a tie.
    int tw = W - x0 < LW_AHD_TILE ? W - x0 : LW_AHD_TILE;
    int th = H - y0 < LW_AHD_TILE ? H - y0 : LW_AHD_TILE;
    for (int j = M - 1; j < M + th + 1; j++) {
        const float *h = t->hd + j * E;
        float *restrict s = t->sum + j * E;
        for (int i = M; i < M + tw; i++) s[i] = h[i - 1] + h[i] + h[i + 1];
    }
    for (int j = M; j < M + th; j++) {
        const float *s = t->sum + j * E;
        uint16_t *restrict dst = out + ((size_t)(j - M) * W + x0) * 4;   // out is the tile's first row
        const float *hR = t->rgb[0][0] + j * E, *hG = t->rgb[0][1] + j * E, *hB = t->rgb[0][2] + j * E;
        const float *vR = t->rgb[1][0] + j * E, *vG = t->rgb[1][1] + j * E, *vB = t->rgb[1][2] + j * E;
        for (int i = M; i < M + tw; i++) {
            float total = s[i - E] + s[i] + s[i + E];
            float w = total > 0 ? 1.0f : (total < 0 ? 0.0f : 0.5f);
            uint16_t *px = dst + 4 * (i - M);
            px[0] = (uint16_t)((vR[i] + w * (hR[i] - vR[i])) * 65535.0f + 0.5f);
            px[1] = (uint16_t)((vG[i] + w * (hG[i] - vG[i])) * 65535.0f + 0.5f);
            px[2] = (uint16_t)((vB[i] + w * (hB[i] - vB[i])) * 65535.0f + 0.5f);
            px[3] = 0;
        }
    }
}

__attribute__((target("avx2")))
static void tile_avx2(const lw_bayer *b, int x0, int y0, tile_t *t, uint16_t *out) { tile_body(b, x0, y0, t, out); }
static void tile_base(const lw_bayer *b, int x0, int y0, tile_t *t, uint16_t *out) { tile_body(b, x0, y0, t, out); }

void lw_ahd_tile(const lw_bayer *b, int x0, int y0, void *scratch, uint16_t *out) {
    if (lw_cpu_avx2()) tile_avx2(b, x0, y0, scratch, out);
    else tile_base(b, x0, y0, scratch, out);
}
