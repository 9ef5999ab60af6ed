#ifndef LW_SHA256_H
#define LW_SHA256_H
#include <stddef.h>
#include <stdint.h>

/// Compresses `blocks` 64-byte blocks into `state` (the eight SHA-256 words, host order): with SHA-NI when
/// `lw_cpu_sha()` says so, else in portable C (FIPS 180-4); both give the same words (`lw_cpu_force_baseline`
/// makes the tests compare them).
void lw_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
