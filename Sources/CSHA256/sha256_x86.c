// SHA-256 blocks with the x86 SHA extensions (SHA256RNDS2, SHA256MSG1, SHA256MSG2). The
// portable Swift compression in BLEFleet stays the reference and the path on other CPUs; this
// one is chosen at run time, so one binary runs on any x86-64.
#include "CSHA256.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

int blecap_sha256_hw_available(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (!(c & bit_SSSE3) || !(c & bit_SSE4_1)) return 0;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & bit_SHA) ? 1 : 0;
}

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
void blecap_sha256_hw_compress(uint32_t state[8], const uint8_t *data, size_t blocks) {
    // The instructions keep the state as two vectors, ABEF and CDGH (high lane first).
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);  // CDAB
    __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);   // EFGH
    __m128i s0 = _mm_alignr_epi8(tmp, s1, 8);                                            // ABEF
    s1 = _mm_blend_epi16(s1, tmp, 0xF0);                                                 // CDGH
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef = s0, cdgh = s1;
        // The message schedule, four words a vector: W[16..63] from the block's 16 words.
        __m128i w[16];
        for (int i = 0; i < 4; i++) w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), bswap);
        for (int i = 4; i < 16; i++) {
            __m128i x = _mm_sha256msg1_epu32(w[i - 4], w[i - 3]);
            x = _mm_add_epi32(x, _mm_alignr_epi8(w[i - 1], w[i - 2], 4));
            w[i] = _mm_sha256msg2_epu32(x, w[i - 1]);
        }
        // Four rounds per vector: SHA256RNDS2 does two with the low two words of W+K.
        for (int i = 0; i < 16; i++) {
            __m128i m = _mm_add_epi32(w[i], _mm_loadu_si128((const __m128i *)&K[4 * i]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, m);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0E));
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    tmp = _mm_shuffle_epi32(s0, 0x1B);   // FEBA
    s1 = _mm_shuffle_epi32(s1, 0xB1);    // DCHG
    s0 = _mm_blend_epi16(tmp, s1, 0xF0); // DCBA
    s1 = _mm_alignr_epi8(s1, tmp, 8);    // HGFE
    _mm_storeu_si128((__m128i *)&state[0], s0);
    _mm_storeu_si128((__m128i *)&state[4], s1);
}

#else

int blecap_sha256_hw_available(void) { return 0; }

void blecap_sha256_hw_compress(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state;
    (void)data;
    (void)blocks;
}

#endif
