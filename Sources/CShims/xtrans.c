// Demosaic of a 6 × 6 X-Trans mosaic (Fujifilm's X-Trans sensors), LightWork's own, in the manner of Frank
// Markesteijn's one-pass method (as dcraw's xtrans_interpolate describes it): green in four directions (rows,
// columns and both diagonals) at red and blue sites, each from the nearest greens along that direction and a
// curvature correction from the site's own colour, limited to the greens around the site; red and blue in each
// direction from colour differences to that direction's green at the nearest sites of that colour, each weighted
// down by how far its green differs from the pixel's (so differences do not bleed across an edge); then, in CIE Lab, how smooth each candidate is along
// its own direction, and per pixel the mean of the candidates smooth over the most of its 5 × 5 neighbourhood.
// Every weight depends only on the site in the 6 × 6 pattern; `lw_xtrans_plan` lays them out once per column of a
// tile (tiles start on whole periods, so all share one plan), and every loop then runs branch-free over whole rows
// so that it vectorises. The same C is built for AVX2 and for baseline x86-64 without FMA, so both give the same
// bytes.
#include "lw_demosaic.h"
#include "lw_cpu.h"
#include "lab_f.h"
#include <string.h>

#define M 8                              // tile margin: Lab window 2 + derivative 1 + red/blue 2 + green 3
#define T LW_XTRANS_TILE
#define E (T + 2 * M)                    // extended tile edge
#define A (E * E)
#define ND 4                             // directions: rows, columns, down-right, down-left
#define MAXG 16                          // green taps of one direction, over all 36 sites
#define MAXC 24                          // colour-difference taps of one colour, over all 36 sites
#define GAIN 1.0f                        // curvature correction: 1 is the Taylor estimate of the line's error
#define EDGE 0.001f                      // green difference (of white) at which a red or blue neighbour's weight halves
#define SMOOTH 4.0f                      // a direction is smooth at a pixel within this multiple of the least squared change
#define NEAR_BEST 0.875f                 // directions counted smooth at least this share of the best count are averaged

static const int dir_y[ND] = { 0, 1, 1, 1 }, dir_x[ND] = { 1, 0, 1, -1 };
static const int ring_y[8] = { -1, -1, -1, 0, 0, 1, 1, 1 }, ring_x[8] = { -1, 0, 1, -1, 1, -1, 0, 1 };

typedef struct {
    int ng[ND], goff[ND][MAXG];          // per direction: taps (offsets in the extended tile) for green
    float gw[ND][MAXG][6][E];            //   and their weight at each row phase and column
    int nc[2], coff[2][MAXC];            // red (0) and blue (1): colour-difference taps
    float cw[2][MAXC][6][E];
    float ring[8][6][E];                 // 1 where a red or blue site's 3 × 3 neighbour is green
    float isg[6][E];
    float black[6][E], scale[6][E];
} plan_t;

typedef struct {
    float cfa[A];
    float lo[A], hi[A];                  // the greens around each red and blue site: the range green is held to
    float g[ND][A];
    float diff[A];                       // mosaic minus the direction's green
    float rb[ND][2][A];                  // red and blue in each direction
    float lab[3][A];
    float drv[ND][A];                    // squared Lab change along the direction, both ways
    float hom[ND][A];
    float tmp[A];
} xtile_t;

size_t lw_xtrans_plan_bytes(void) { return sizeof(plan_t); }
size_t lw_xtrans_scratch_bytes(void) { return sizeof(xtile_t); }

static inline int mod6(int v) { v %= 6; return v < 0 ? v + 6 : v; }
static inline int site_colour(const int *colour, int y, int x) { return colour[mod6(y) * 6 + mod6(x)]; }

// A site's green weights for direction d on a 7 × 7 grid (w[(dy + 3) * 7 + dx + 3]); 0 when the site has no
// green within three steps on either side and none around it.
static int green_weights(const int *colour, int sy, int sx, int d, float *w) {
    memset(w, 0, sizeof(float) * 49);
#define W(y, x) w[((y) + 3) * 7 + (x) + 3]
    int own = site_colour(colour, sy, sx);
    if (own == 1) { W(0, 0) = 1; return 1; }
    int dy = dir_y[d], dx = dir_x[d], a = 0, b = 0;
    for (int k = 3; k >= 1; k--) {
        if (site_colour(colour, sy + k * dy, sx + k * dx) == 1) a = k;
        if (site_colour(colour, sy - k * dy, sx - k * dx) == 1) b = k;
    }
    if (a == 0 || b == 0) {
        // No green along this direction on one side: the mean of the greens around the site.
        int n = 0;
        for (int k = 0; k < 8; k++) n += site_colour(colour, sy + ring_y[k], sx + ring_x[k]) == 1;
        if (n == 0) return 0;
        for (int k = 0; k < 8; k++)
            if (site_colour(colour, sy + ring_y[k], sx + ring_x[k]) == 1) W(ring_y[k], ring_x[k]) = 1.0f / n;
        return 1;
    }
    if (a == 1 && b == 1 && site_colour(colour, sy + 2 * dy, sx + 2 * dx) == 1 && site_colour(colour, sy - 2 * dy, sx - 2 * dx) == 1) {
        // Greens at ±1 and ±2: the cubic through all four, exact on any cubic ramp.
        W(dy, dx) = W(-dy, -dx) = 2.0f / 3.0f;
        W(2 * dy, 2 * dx) = W(-2 * dy, -2 * dx) = -1.0f / 6.0f;
        return 1;
    }
    // The line between the nearest greens, corrected by the site colour's curvature along the direction: its own
    // value against the same colour ahead and behind (on the line when it lies within three steps both ways,
    // else the nearest within a pixel of the line).
    W(a * dy, a * dx) += (float)b / (a + b);
    W(-b * dy, -b * dx) += (float)a / (a + b);
    int ahead[8][2], behind[8][2], na = 0, nb = 0, sa = 0, sb = 0;
    for (int s = 1; s <= 3 && !na; s++)
        if (site_colour(colour, sy + s * dy, sx + s * dx) == own && site_colour(colour, sy - s * dy, sx - s * dx) == own) {
            ahead[0][0] = s * dy; ahead[0][1] = s * dx; behind[0][0] = -s * dy; behind[0][1] = -s * dx;
            na = nb = 1; sa = sb = s;
        }
    if (!na && dy * dx == 0) {
        for (int s = 1; s <= 3; s++)
            for (int p = -1; p <= 1; p++) {
                int qy = dy ? s : p, qx = dy ? p : s;         // s along the axis, p across it
                if (!sa && site_colour(colour, sy + qy, sx + qx) == own) { ahead[na][0] = qy; ahead[na][1] = qx; na++; }
                if (!sb && site_colour(colour, sy - qy, sx - qx) == own) { behind[nb][0] = -qy; behind[nb][1] = -qx; nb++; }
                if (p == 1) { if (na && !sa) sa = s; if (nb && !sb) sb = s; }
            }
    }
    if (na && nb) {
        float gain = GAIN * (float)(a * b) / (float)(sa * sb);
        W(0, 0) += gain;
        for (int k = 0; k < na; k++) W(ahead[k][0], ahead[k][1]) -= gain * (float)sb / (float)(sa + sb) / (float)na;
        for (int k = 0; k < nb; k++) W(behind[k][0], behind[k][1]) -= gain * (float)sa / (float)(sa + sb) / (float)nb;
    }
#undef W
    return 1;
}

// A site's weights for colour c (0 red, 2 blue) as (c − green) on a 5 × 5 grid: its own difference at its own
// colour, else the nearest sites of that colour by inverse squared distance; 0 when there is none within 2 pixels.
static int colour_weights(const int *colour, int sy, int sx, int c, float *w) {
    memset(w, 0, sizeof(float) * 25);
    if (site_colour(colour, sy, sx) == c) { w[12] = 1; return 1; }
    for (int reach = 5; reach <= 8; reach += 3) {
        float total = 0;
        for (int y = -2; y <= 2; y++)
            for (int x = -2; x <= 2; x++) {
                int r = y * y + x * x;
                if (r > 0 && r <= reach && site_colour(colour, sy + y, sx + x) == c) { w[(y + 2) * 5 + x + 2] = 1.0f / r; total += 1.0f / r; }
            }
        if (total > 0) {
            for (int k = 0; k < 25; k++) w[k] /= total;
            return 1;
        }
    }
    return 0;
}

// Column i of an extended tile is image column x0 - M + i with x0 a whole number of periods: its site column
// (and row j's site row likewise). Weights are laid out per site row (0…5) and tile column.
static inline int phase(int i) { return mod6(i - M); }

int lw_xtrans_plan(const lw_xtrans *x, void *out) {
    plan_t *p = out;
    memset(p, 0, sizeof *p);
    float gsite[36][ND][49], csite[36][2][25];
    for (int s = 0; s < 36; s++) {
        int sy = s / 6, sx = s % 6, c = x->colour[s];
        if (c < 0 || c > 2) return 0;
        for (int d = 0; d < ND; d++) if (!green_weights(x->colour, sy, sx, d, gsite[s][d])) return 0;
        for (int k = 0; k < 2; k++) if (!colour_weights(x->colour, sy, sx, 2 * k, csite[s][k])) return 0;
        if (c != 1) {
            int n = 0;
            for (int k = 0; k < 8; k++) n += site_colour(x->colour, sy + ring_y[k], sx + ring_x[k]) == 1;
            if (n == 0) return 0;
        }
    }
    for (int d = 0; d < ND; d++)
        for (int k = 0; k < 49; k++) {
            int used = 0;
            for (int s = 0; s < 36; s++) used |= gsite[s][d][k] != 0;
            if (!used) continue;
            if (p->ng[d] == MAXG) return 0;
            int t = p->ng[d]++;
            p->goff[d][t] = (k / 7 - 3) * E + (k % 7 - 3);
            for (int py = 0; py < 6; py++)
                for (int i = 0; i < E; i++) p->gw[d][t][py][i] = gsite[py * 6 + phase(i)][d][k];
        }
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 25; k++) {
            int used = 0;
            for (int s = 0; s < 36; s++) used |= csite[s][c][k] != 0;
            if (!used) continue;
            if (p->nc[c] == MAXC) return 0;
            int t = p->nc[c]++;
            p->coff[c][t] = (k / 5 - 2) * E + (k % 5 - 2);
            for (int py = 0; py < 6; py++)
                for (int i = 0; i < E; i++) p->cw[c][t][py][i] = csite[py * 6 + phase(i)][c][k];
        }
    for (int py = 0; py < 6; py++)
        for (int i = 0; i < E; i++) {
            int sy = py, sx = phase(i), s = sy * 6 + sx, green = x->colour[s] == 1;
            p->isg[py][i] = (float)green;
            p->black[py][i] = x->black[s];
            p->scale[py][i] = x->scale[s];
            for (int k = 0; k < 8; k++) p->ring[k][py][i] = !green && site_colour(x->colour, sy + ring_y[k], sx + ring_x[k]) == 1;
        }
    return 1;
}

static inline float clamp01(float v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

// An image coordinate outside 0…n−1 moved by whole periods to the nearest inside (n ≥ 6): the site stays the same.
static inline int wrap6(int v, int n) {
    if (v < 0) return v + 6 * ((5 - v) / 6);
    if (v >= n) return v - 6 * ((v - n) / 6 + 1);
    return v;
}

static inline __attribute__((always_inline))
void xtrans_body(const lw_xtrans *x, const plan_t *restrict p, int x0, int y0, xtile_t *restrict t, uint16_t *out) {
    const int W = x->width, H = x->height;

    // 1. The normalised mosaic, continued past the image edges by whole periods.
    const int inside = x0 - M >= 0 && x0 - M + E <= W;
    for (int j = 0; j < E; j++) {
        const int py = mod6(j - M);
        const uint16_t *row = x->raw + (size_t)wrap6(y0 - M + j, H) * x->pitch;
        const float *bl = p->black[py], *sc = p->scale[py];
        float *restrict dst = t->cfa + j * E;
        if (inside) {
            const uint16_t *src = row + x0 - M;
            for (int i = 0; i < E; i++) dst[i] = clamp01(((float)src[i] - bl[i]) * sc[i]);
        } else {
            for (int i = 0; i < E; i++) dst[i] = clamp01(((float)row[wrap6(x0 - M + i, W)] - bl[i]) * sc[i]);
        }
    }

    // 2. The range of the greens around each red and blue site (inset 1).
    for (int j = 1; j < E - 1; j++) {
        const int py = mod6(j - M);
        const float *c = t->cfa + j * E;
        float *restrict lo = t->lo + j * E, *restrict hi = t->hi + j * E;
        for (int i = 1; i < E - 1; i++) { lo[i] = 1; hi[i] = 0; }
        for (int k = 0; k < 8; k++) {
            const float *m = p->ring[k][py];
            const int o = ring_y[k] * E + ring_x[k];
            for (int i = 1; i < E - 1; i++) {
                float v = c[i + o];
                float l = m[i] != 0 && v < lo[i] ? v : lo[i];
                float h = m[i] != 0 && v > hi[i] ? v : hi[i];
                lo[i] = l; hi[i] = h;
            }
        }
    }

    // 3. Green in each direction (inset 3), held to that range at red and blue sites.
    for (int d = 0; d < ND; d++)
        for (int j = 3; j < E - 3; j++) {
            const int py = mod6(j - M);
            const float *c = t->cfa + j * E, *lo = t->lo + j * E, *hi = t->hi + j * E, *g1 = p->isg[py];
            float *restrict g = t->g[d] + j * E;
            for (int i = 3; i < E - 3; i++) g[i] = 0;
            for (int k = 0; k < p->ng[d]; k++) {
                const float *w = p->gw[d][k][py];
                const int o = p->goff[d][k];
                for (int i = 3; i < E - 3; i++) g[i] += w[i] * c[i + o];
            }
            for (int i = 3; i < E - 3; i++) {
                float v = g[i] < lo[i] ? lo[i] : (g[i] > hi[i] ? hi[i] : g[i]);
                g[i] = g1[i] != 0 ? c[i] : v;
            }
        }

    // 4. Red and blue in each direction from colour differences (inset 5), each neighbour's weight divided by EDGE
    //    plus its green's difference from the pixel's; Lab; change along the direction (inset 6).
    const float *m = x->to_xyz;
    for (int d = 0; d < ND; d++) {
        for (int j = 3; j < E - 3; j++) {
            const float *c = t->cfa + j * E, *g = t->g[d] + j * E;
            float *restrict df = t->diff + j * E;
            for (int i = 3; i < E - 3; i++) df[i] = c[i] - g[i];
        }
        for (int j = 5; j < E - 5; j++) {
            const int py = mod6(j - M);
            const float *g = t->g[d] + j * E, *df = t->diff + j * E;
            for (int cc = 0; cc < 2; cc++) {
                float *restrict v = t->rb[d][cc] + j * E, *restrict den = t->tmp + j * E;
                for (int i = 5; i < E - 5; i++) { v[i] = 0; den[i] = 0; }
                for (int k = 0; k < p->nc[cc]; k++) {
                    const float *w = p->cw[cc][k][py];
                    const int o = p->coff[cc][k];
                    for (int i = 5; i < E - 5; i++) {
                        float dg = g[i + o] - g[i];
                        dg = dg < 0 ? -dg : dg;
                        float ww = w[i] / (EDGE + dg);
                        v[i] += ww * df[i + o];
                        den[i] += ww;
                    }
                }
                for (int i = 5; i < E - 5; i++) v[i] = clamp01(g[i] + v[i] / den[i]);
            }
            const float *r = t->rb[d][0] + j * E, *b = t->rb[d][1] + j * E;
            float *restrict L = t->lab[0] + j * E, *restrict La = t->lab[1] + j * E, *restrict Lb = t->lab[2] + j * E;
            for (int i = 5; i < E - 5; i++) {
                float gn = clamp01(g[i]);
                float fx = lab_f(m[0] * r[i] + m[1] * gn + m[2] * b[i]);
                float fy = lab_f(m[3] * r[i] + m[4] * gn + m[5] * b[i]);
                float fz = lab_f(m[6] * r[i] + m[7] * gn + m[8] * b[i]);
                L[i] = 116 * fy - 16;
                La[i] = 500 * (fx - fy);
                Lb[i] = 200 * (fy - fz);
            }
        }
        const int s = dir_y[d] * E + dir_x[d];
        for (int j = 6; j < E - 6; j++) {
            const float *L = t->lab[0] + j * E, *La = t->lab[1] + j * E, *Lb = t->lab[2] + j * E;
            float *restrict dv = t->drv[d] + j * E;
            for (int i = 6; i < E - 6; i++) {
                float l1 = L[i] - L[i + s], a1 = La[i] - La[i + s], b1 = Lb[i] - Lb[i + s];
                float l2 = L[i] - L[i - s], a2 = La[i] - La[i - s], b2 = Lb[i] - Lb[i - s];
                dv[i] = (l1 * l1 + a1 * a1 + b1 * b1) + (l2 * l2 + a2 * a2 + b2 * b2);
            }
        }
    }

    // 5. Per direction, how many of the 5 × 5 neighbours change along it by at most twice the least change there
    //    (drv is squared: 4 times); counted as rows of 5 then columns of 5 (inset 8).
    for (int j = 6; j < E - 6; j++) {
        const float *d0 = t->drv[0] + j * E, *d1 = t->drv[1] + j * E, *d2 = t->drv[2] + j * E, *d3 = t->drv[3] + j * E;
        for (int d = 0; d < ND; d++) {
            const float *dd = t->drv[d] + j * E;
            float *restrict h = t->hom[d] + j * E;
            for (int i = 6; i < E - 6; i++) {
                float a = d0[i] < d1[i] ? d0[i] : d1[i], b = d2[i] < d3[i] ? d2[i] : d3[i];
                float least = a < b ? a : b;
                h[i] = dd[i] <= SMOOTH * least ? 1.0f : 0.0f;
            }
        }
    }
    for (int d = 0; d < ND; d++) {
        for (int j = 6; j < E - 6; j++) {
            const float *h = t->hom[d] + j * E;
            float *restrict s5 = t->tmp + j * E;
            for (int i = M; i < E - M; i++) s5[i] = (h[i - 2] + h[i - 1]) + h[i] + (h[i + 1] + h[i + 2]);
        }
        for (int j = M; j < E - M; j++) {
            const float *s5 = t->tmp + j * E;
            float *restrict h = t->hom[d] + j * E;
            for (int i = M; i < E - M; i++) h[i] = (s5[i - 2 * E] + s5[i - E]) + s5[i] + (s5[i + E] + s5[i + 2 * E]);
        }
    }

    // 6. Per output pixel, the mean of the directions within an eighth of the best count.
    int tw = W - x0 < T ? W - x0 : T;
    int th = H - y0 < T ? H - y0 : T;
    for (int j = M; j < M + th; j++) {
        uint16_t *restrict dst = out + ((size_t)(j - M) * W + x0) * 4;   // out is the tile's first row
        const float *h0 = t->hom[0] + j * E, *h1 = t->hom[1] + j * E, *h2 = t->hom[2] + j * E, *h3 = t->hom[3] + j * E;
        for (int i = M; i < M + tw; i++) {
            float a = h0[i] > h1[i] ? h0[i] : h1[i], b = h2[i] > h3[i] ? h2[i] : h3[i];
            float best = a > b ? a : b, floor = best * NEAR_BEST;
            float r = 0, g = 0, bl = 0, n = 0;
            for (int d = 0; d < ND; d++) {
                float w = t->hom[d][j * E + i] >= floor ? 1.0f : 0.0f;
                r += w * t->rb[d][0][j * E + i];
                g += w * clamp01(t->g[d][j * E + i]);
                bl += w * t->rb[d][1][j * E + i];
                n += w;
            }
            float inv = 1.0f / n;
            uint16_t *px = dst + 4 * (i - M);
            px[0] = (uint16_t)(r * inv * 65535.0f + 0.5f);
            px[1] = (uint16_t)(g * inv * 65535.0f + 0.5f);
            px[2] = (uint16_t)(bl * inv * 65535.0f + 0.5f);
            px[3] = 0;
        }
    }
}

__attribute__((target("avx2")))
static void xtrans_avx2(const lw_xtrans *x, const plan_t *p, int x0, int y0, xtile_t *t, uint16_t *out) { xtrans_body(x, p, x0, y0, t, out); }
static void xtrans_base(const lw_xtrans *x, const plan_t *p, int x0, int y0, xtile_t *t, uint16_t *out) { xtrans_body(x, p, x0, y0, t, out); }

void lw_xtrans_tile(const lw_xtrans *x, const void *plan, int x0, int y0, void *scratch, uint16_t *out) {
    if (lw_cpu_avx2()) xtrans_avx2(x, plan, x0, y0, scratch, out);
    else xtrans_base(x, plan, x0, y0, scratch, out);
}
