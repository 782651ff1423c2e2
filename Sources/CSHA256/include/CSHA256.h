#ifndef BLECAP_CSHA256_H
#define BLECAP_CSHA256_H
#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the x86 SHA extensions (and SSSE3 and SSE4.1, which the code around them
/// uses), else 0; always 0 on other architectures. Asked of CPUID once per call: cache it.
int blecap_sha256_hw_available(void);

/// SHA-256's compression function (FIPS 180-4, 6.2.2) over `blocks` whole 64-byte blocks at
/// `data`, updating `state` (H0..H7 as numbers) in place, with the SHA extensions. Only call it
/// when blecap_sha256_hw_available() is 1; elsewhere it does nothing.
void blecap_sha256_hw_compress(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
