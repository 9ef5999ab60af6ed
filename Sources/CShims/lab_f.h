// CIE Lab's f(t) for the homogeneity tests of AHD (demosaic.c) and the X-Trans demosaic (xtrans.c), written once:
// plain float arithmetic (no cbrtf), so the AVX2 and baseline builds of each kernel give the same bits.
#ifndef LW_LAB_F_H
#define LW_LAB_F_H
#include <stdint.h>
#include <string.h>

static inline float as_float(int32_t i) { float f; memcpy(&f, &i, 4); return f; }
static inline int32_t as_int(float f) { int32_t i; memcpy(&i, &f, 4); return i; }

// CIE Lab's f(t): the cube root (a bit-level first guess and three Newton steps) above the linear toe.
static inline float lab_f(float t) {
    t = t > 0 ? t : 0;
    float y = as_float((int32_t)((float)as_int(t) * (1.0f / 3.0f)) + 709921077);
    for (int k = 0; k < 3; k++) y = (y + y + t / (y * y)) * (1.0f / 3.0f);
    return t > 216.0f / 24389.0f ? y : (24389.0f / 27.0f * t + 16.0f) / 116.0f;
}

#endif
