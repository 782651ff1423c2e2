#ifndef BLECAP_CFUZZERDRIVER_H
#define BLECAP_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt FuzzerInterface.h). SwiftPM links an executable with
/// `--defsym main=<Module>_main`, so a fuzz target defines that symbol and calls this instead of
/// relying on libFuzzer's own main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// An anonymous in-memory file (memfd_create), so each input is a real, seekable file.
int blecap_fuzz_memfd(void);

#endif
