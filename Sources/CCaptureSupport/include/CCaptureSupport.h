#ifndef BLECAP_CCAPTURESUPPORT_H
#define BLECAP_CCAPTURESUPPORT_H
#include <stdio.h>
#include <stddef.h>

/// A read-only FILE* that yields `prefix` (copied) and then the rest of `fd`.
/// Used to hand stdin to libpcap after blecap has sniffed its first bytes.
/// Returns NULL on failure. Closing the FILE* does not close `fd`. ftell() works (it counts the
/// bytes delivered from the start of `prefix`); every other seek fails with ESPIPE.
FILE *blecap_fopen_prefixed(const unsigned char *prefix, size_t prefix_len, int fd);

/// An anonymous in-memory file (memfd_create with close-on-exec), or -1 with errno set (ENOSYS
/// where the kernel or a seccomp filter has no memfd). Reopenable through /proc/self/fd.
int blecap_memfd(const char *name);

#endif
