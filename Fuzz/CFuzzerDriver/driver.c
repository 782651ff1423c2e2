#define _GNU_SOURCE
#include <sys/mman.h>
#include "CFuzzerDriver.h"

int blecap_fuzz_memfd(void) { return memfd_create("blecap-fuzz", MFD_CLOEXEC); }
