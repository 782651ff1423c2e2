#define _GNU_SOURCE
#include "CCaptureSupport.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

struct prefixed {
    unsigned char *prefix;
    size_t len, pos;
    int fd;
    /* Bytes handed to stdio so far (prefix + fd), so that ftell() works on the stream. */
    off64_t delivered;
};

static ssize_t prefixed_read(void *cookie, char *buf, size_t size) {
    struct prefixed *p = cookie;
    if (p->pos < p->len) {
        size_t n = p->len - p->pos;
        if (n > size) n = size;
        memcpy(buf, p->prefix + p->pos, n);
        p->pos += n;
        p->delivered += (off64_t)n;
        return (ssize_t)n;
    }
    for (;;) {
        ssize_t n = read(p->fd, buf, size);
        if (n < 0 && errno == EINTR) continue;
        if (n > 0) p->delivered += n;
        return n;
    }
}

/* Tell-only: a pipe cannot seek, but readers report file offsets, so ftell() must answer.
   glibc asks the cookie for the position with (0, SEEK_CUR) and subtracts what it buffered. */
static int prefixed_seek(void *cookie, off64_t *offset, int whence) {
    struct prefixed *p = cookie;
    if (whence == SEEK_CUR && *offset == 0) {
        *offset = p->delivered;
        return 0;
    }
    errno = ESPIPE;
    return -1;
}

static int prefixed_close(void *cookie) {
    struct prefixed *p = cookie;
    free(p->prefix);
    free(p);
    return 0;
}

FILE *blecap_fopen_prefixed(const unsigned char *prefix, size_t prefix_len, int fd) {
    struct prefixed *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (prefix_len) {
        p->prefix = malloc(prefix_len);
        if (!p->prefix) { free(p); return NULL; }
        memcpy(p->prefix, prefix, prefix_len);
    }
    p->len = prefix_len;
    p->fd = fd;
    cookie_io_functions_t io = { .read = prefixed_read, .write = NULL, .seek = prefixed_seek, .close = prefixed_close };
    FILE *f = fopencookie(p, "r", io);
    if (!f) { free(p->prefix); free(p); }
    return f;
}
