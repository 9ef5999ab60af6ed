#ifndef LW_SHA256_H
#define LW_SHA256_H
#include <stddef.h>
#include <stdint.h>

/// 1 when the CPU has the SHA extensions (SHA-NI) and SSE4.1, so `lw_sha256_blocks` may be called.
int lw_sha256_hardware(void);
/// Compresses `blocks` 64-byte blocks into `state` (the eight SHA-256 words, host order) with SHA-NI.
/// Only call when `lw_sha256_hardware()` is 1.
void lw_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);
/// The same compression in portable C (FIPS 180-4), for CPUs without SHA-NI and to check the fast path.
void lw_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
