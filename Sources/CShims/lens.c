#include "lw_lens.h"
#include <math.h>

/// Keys' cubic convolution weights (a = -1/2, Catmull-Rom) for a sample at fraction t past tap 1.
static inline void keys_weights(float t, float w[4]) {
    w[0] = ((-0.5f * t + 1.0f) * t - 0.5f) * t;
    w[1] = (1.5f * t - 2.5f) * t * t + 1.0f;
    w[2] = ((-1.5f * t + 2.0f) * t + 0.5f) * t;
    w[3] = (0.5f * t - 0.5f) * t * t;
}

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

void lw_lens_resample_row(const float *plane, int width, int height, const float *coords, int stride, int n, float *out) {
    const float maxx = (float)(width - 1), maxy = (float)(height - 1);
    for (int k = 0; k < n; k++) {
        float x = coords[(long)k * stride], y = coords[(long)k * stride + 1];
        // NaN fails both tests and lands on 0: a position lensfun could not compute never reads outside.
        if (!(x >= 0.0f)) x = 0.0f;
        if (x > maxx) x = maxx;
        if (!(y >= 0.0f)) y = 0.0f;
        if (y > maxy) y = maxy;
        int ix = (int)x, iy = (int)y;
        float wx[4], wy[4];
        keys_weights(x - (float)ix, wx);
        keys_weights(y - (float)iy, wy);
        float sum = 0.0f;
        if (ix >= 1 && iy >= 1 && ix + 2 < width && iy + 2 < height) {
            const float *p = plane + (long)(iy - 1) * width + (ix - 1);
            for (int j = 0; j < 4; j++, p += width) {
                float row = wx[0] * p[0] + wx[1] * p[1] + wx[2] * p[2] + wx[3] * p[3];
                sum += wy[j] * row;
            }
        } else {
            for (int j = 0; j < 4; j++) {
                const float *p = plane + (long)clampi(iy - 1 + j, 0, height - 1) * width;
                float row = 0.0f;
                for (int i = 0; i < 4; i++) row += wx[i] * p[clampi(ix - 1 + i, 0, width - 1)];
                sum += wy[j] * row;
            }
        }
        out[k] = sum;
    }
}
