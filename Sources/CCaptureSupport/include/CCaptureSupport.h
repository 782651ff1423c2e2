#ifndef BLECAP_CCAPTURESUPPORT_H
#define BLECAP_CCAPTURESUPPORT_H
#include <stdio.h>
#include <stddef.h>

/// A read-only FILE* that yields `prefix` (copied) and then the rest of `fd`.
/// Used to hand stdin to libpcap after blecap has sniffed its first bytes.
/// Returns NULL on failure. Closing the FILE* does not close `fd`. ftell() works (it counts the
/// bytes delivered from the start of `prefix`); every other seek fails with ESPIPE.
FILE *blecap_fopen_prefixed(const unsigned char *prefix, size_t prefix_len, int fd);

#endif
