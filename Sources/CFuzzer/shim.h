#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver (compiler-rt), linked in only by builds with -sanitize=fuzzer. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
