// SHA-256 block compression with the x86 SHA extensions: every input and output is hashed for the manifest
// and for resumable runs (a 24 MP 16-bit TIFF is 144 MB), and Swift cannot emit these instructions.
// The portable C compression below is used where the CPU lacks them (cpu.c says which); both share one constants table.
#include "lw_sha256.h"
#include "lw_cpu.h"
#include <immintrin.h>
#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

__attribute__((target("sha,sse4.1,ssse3")))
static void blocks_sha(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i state1 = _mm_loadu_si128((const __m128i *)&state[4]);
    tmp = _mm_shuffle_epi32(tmp, 0xB1);              // CDAB
    state1 = _mm_shuffle_epi32(state1, 0x1B);        // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8); // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);     // CDGH

    while (blocks--) {
        const __m128i abef = state0, cdgh = state1;
        __m128i m[4];
        // 16 groups of four rounds; the message schedule runs three groups ahead (msg1) and one behind (msg2).
        // Unrolled whole, so that m[] lives in registers and the conditions vanish: left as a loop, clang kept m[]
        // on the stack and branched on g every group (1.1-1.3 GB/s; unrolled about OpenSSL's 1.8).
#pragma clang loop unroll(full)
        for (int g = 0; g < 16; g++) {
            if (g < 4) m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), mask);
            __m128i msg = _mm_add_epi32(m[g & 3], _mm_loadu_si128((const __m128i *)&K[4 * g]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
            if (g >= 3 && g <= 14) {
                __m128i t = _mm_alignr_epi8(m[g & 3], m[(g + 3) & 3], 4);
                m[(g + 1) & 3] = _mm_sha256msg2_epu32(_mm_add_epi32(m[(g + 1) & 3], t), m[g & 3]);
            }
            msg = _mm_shuffle_epi32(msg, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, msg);
            if (g >= 1 && g <= 12) m[(g + 3) & 3] = _mm_sha256msg1_epu32(m[(g + 3) & 3], m[g & 3]);
        }
        state0 = _mm_add_epi32(state0, abef);
        state1 = _mm_add_epi32(state1, cdgh);
        data += 64;
    }

    tmp = _mm_shuffle_epi32(state0, 0x1B);           // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);        // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);     // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8);        // ABEF
    _mm_storeu_si128((__m128i *)&state[0], state0);
    _mm_storeu_si128((__m128i *)&state[4], state1);
}

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    uint32_t w[64];
    while (blocks--) {
        for (int t = 0; t < 16; t++)
            w[t] = (uint32_t)data[4 * t] << 24 | (uint32_t)data[4 * t + 1] << 16 | (uint32_t)data[4 * t + 2] << 8 | data[4 * t + 3];
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            uint32_t t1 = h + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
            uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e; state[5] += f; state[6] += g; state[7] += h;
        data += 64;
    }
}

void lw_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    if (lw_cpu_sha()) blocks_sha(state, data, blocks); else blocks_portable(state, data, blocks);
}

void lw_sha256_init(lw_sha256_ctx *c) {
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->state, iv, sizeof iv);
    c->length = 0;
    c->held = 0;
}

void lw_sha256_update(lw_sha256_ctx *c, const void *data, size_t n) {
    const uint8_t *p = data;
    c->length += n;
    if (c->held) {
        size_t take = 64 - c->held < n ? 64 - c->held : n;
        memcpy(c->block + c->held, p, take);
        c->held += take; p += take; n -= take;
        if (c->held < 64) return;
        lw_sha256_blocks(c->state, c->block, 1);
        c->held = 0;
    }
    if (n >= 64) {
        lw_sha256_blocks(c->state, p, n / 64);
        p += n / 64 * 64;
        n %= 64;
    }
    memcpy(c->block, p, n);
    c->held = n;
}

void lw_sha256_final(lw_sha256_ctx *c, uint8_t digest[32]) {
    uint64_t bits = c->length * 8;
    uint8_t pad[72] = {0x80};
    size_t zeros = (c->held + 1) % 64 <= 56 ? 56 - (c->held + 1) % 64 : 120 - (c->held + 1) % 64;
    for (int k = 0; k < 8; k++) pad[1 + zeros + k] = (uint8_t)(bits >> (56 - 8 * k));
    lw_sha256_update(c, pad, 1 + zeros + 8);
    for (int k = 0; k < 8; k++) {
        digest[4 * k] = (uint8_t)(c->state[k] >> 24); digest[4 * k + 1] = (uint8_t)(c->state[k] >> 16);
        digest[4 * k + 2] = (uint8_t)(c->state[k] >> 8); digest[4 * k + 3] = (uint8_t)c->state[k];
    }
}
