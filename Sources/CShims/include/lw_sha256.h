#ifndef LW_SHA256_H
#define LW_SHA256_H
#include <stddef.h>
#include <stdint.h>

/// Compresses `blocks` 64-byte blocks into `state` (the eight SHA-256 words, host order): with SHA-NI when
/// `lw_cpu_sha()` says so, else in portable C (FIPS 180-4); both give the same words (`lw_cpu_force_baseline`
/// makes the tests compare them).
void lw_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// A SHA-256 of bytes given in pieces: the state, the part of a block not yet compressed, and the length so far.
/// `Support/SHA256.swift` is this with a Swift face; the direct writer (lw_fileio.h) hashes with it on its thread.
typedef struct {
    uint32_t state[8];
    uint8_t block[64];
    uint64_t length;
    size_t held;
} lw_sha256_ctx;

void lw_sha256_init(lw_sha256_ctx *c);
void lw_sha256_update(lw_sha256_ctx *c, const void *data, size_t n);
/// Pads, compresses and writes the digest (big-endian words); the context is spent.
void lw_sha256_final(lw_sha256_ctx *c, uint8_t digest[32]);

#endif
