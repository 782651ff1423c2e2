// LD_PRELOAD shim for the benchmark: counts heap allocations of a run and prints the total to
// stderr at exit, so `scripts/bench.sh` can show that allocations do not grow with frames.
// Build: cc -shared -fPIC -O2 -o malloc_count.so scripts/malloc_count.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>

static atomic_size_t count;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);

// dlsym itself may calloc before real_calloc is known: serve that from a static arena.
static char arena[4096];
static size_t arena_used;

void *malloc(size_t n) {
    if (!real_malloc) real_malloc = dlsym(RTLD_NEXT, "malloc");
    atomic_fetch_add(&count, 1);
    return real_malloc(n);
}

void *calloc(size_t a, size_t b) {
    if (!real_calloc) {
        static int resolving;
        if (resolving) {
            void *p = arena + arena_used;
            arena_used += (a * b + 15) & ~(size_t)15;
            return p;
        }
        resolving = 1;
        real_calloc = dlsym(RTLD_NEXT, "calloc");
        resolving = 0;
    }
    atomic_fetch_add(&count, 1);
    return real_calloc(a, b);
}

void *realloc(void *p, size_t n) {
    if (!real_realloc) real_realloc = dlsym(RTLD_NEXT, "realloc");
    atomic_fetch_add(&count, 1);
    return real_realloc(p, n);
}

int posix_memalign(void **p, size_t align, size_t n) {
    if (!real_posix_memalign) real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    atomic_fetch_add(&count, 1);
    return real_posix_memalign(p, align, n);
}

void free(void *p) {
    static void (*real_free)(void *);
    if ((char *)p >= arena && (char *)p < arena + sizeof arena) return;
    if (!real_free) real_free = dlsym(RTLD_NEXT, "free");
    real_free(p);
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "heap allocations: %zu\n", (size_t)atomic_load(&count));
}
