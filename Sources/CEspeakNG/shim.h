#include <espeak-ng/speak_lib.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* espeak-ng's synthesis callback for deck_espeak_spawn: writes the samples to the descriptor in
   the events' user data; 1 (stop) when the reader is gone. */
static inline int deck_espeak_write(short *wav, int count, espeak_EVENT *events) {
    int fd = (int)(intptr_t)events->user_data;
    const char *bytes = (const char *)wav;
    size_t left = wav && count > 0 ? (size_t)count * sizeof(short) : 0;
    while (left > 0) {
        ssize_t written = write(fd, bytes, left);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return 1;
        bytes += written;
        left -= (size_t)written;
    }
    return 0;
}

/* Speaks `text` (UTF-8) in a child process, which writes 16-bit mono samples to `output` and ends:
   status 0 when espeak-ng spoke it, 1 when it refused it. espeak-ng (1.51) overflows stack buffers
   on some texts (dotted abbreviations, stacked suffixes) and aborts: only the child ends then.
   Call espeak_Initialize first; the child runs nothing but C. Returns the child's pid, or -1 with
   errno. */
static inline pid_t deck_espeak_spawn(const char *text, int input, int output) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    /* Only the samples' descriptor stays: a child of deckd (Prompts inline) would otherwise hold
       its listening sockets and its state file's lock while it speaks. */
    close(input);
    if (output > 3) syscall(SYS_close_range, 3u, (unsigned)output - 1, 0u);
    syscall(SYS_close_range, (unsigned)output + 1, ~0u, 0u);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    /* A crash ends the child at once, unreported: not through the Swift runtime's backtracer (half
       a second, on deckd's stderr when inline), nor with glibc's message; the parent says why. */
    int fatal[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP};
    for (size_t index = 0; index < sizeof fatal / sizeof *fatal; index++) signal(fatal[index], SIG_DFL);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, STDERR_FILENO);
    espeak_SetSynthCallback(deck_espeak_write);
    espeak_ERROR status = espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL,
                                       (void *)(intptr_t)output);
    _exit(status == EE_OK ? 0 : 1);
}
