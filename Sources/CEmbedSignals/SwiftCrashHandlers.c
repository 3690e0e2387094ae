/*
 * Loading libdeck changes no signal disposition (deck/runtime.h promises it). The Swift runtime
 * that libdeck brings in installs its crash reporter, at load time, on SIGQUIT, SIGABRT, SIGBUS,
 * SIGFPE, SIGILL, SIGSEGV and SIGTRAP wherever they are still SIG_DFL. Unless the program itself
 * is written in Swift (then the reporter is its own), this constructor, which runs after the
 * Swift runtime's, puts every such handler back to SIG_DFL: exactly what was there before.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int named_swift_core(const char *path) { return path && strstr(path, "libswiftCore.so") != NULL; }

/* Whether the main program links the Swift runtime itself (the first object dl_iterate_phdr reports). */
static int main_program_is_swift(struct dl_phdr_info *info, size_t size, void *result) {
    (void)size;
    const ElfW(Dyn) *dynamic = NULL;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        if (info->dlpi_phdr[index].p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[index].p_vaddr);
    }
    const char *strings = NULL;
    for (const ElfW(Dyn) *entry = dynamic; entry && entry->d_tag != DT_NULL; entry++) {
        if (entry->d_tag == DT_STRTAB) strings = (const char *)entry->d_un.d_ptr;
    }
    for (const ElfW(Dyn) *entry = dynamic; strings && entry && entry->d_tag != DT_NULL; entry++) {
        if (entry->d_tag == DT_NEEDED && named_swift_core(strings + entry->d_un.d_val)) *(int *)result = 1;
    }
    return 1;  /* the main program only */
}

/* SIG_DFL with no flags, as a signal no one touched reads back. glibc's sigaction adds
 * SA_RESTORER on x86, so there the kernel is asked directly. */
static void restore_default(int signal_number) {
#if defined(__x86_64__)
    struct { void *handler; unsigned long flags; void *restorer; uint64_t mask; } action = { SIG_DFL, 0, NULL, 0 };
    syscall(SYS_rt_sigaction, signal_number, &action, NULL, sizeof action.mask);
#else
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, NULL);
#endif
}

__attribute__((constructor, used)) static void deck_undo_swift_crash_handlers(void) {
    int swift_program = 0;
    dl_iterate_phdr(main_program_is_swift, &swift_program);
    if (swift_program) return;
    static const int signals[] = { SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP };
    for (size_t index = 0; index < sizeof signals / sizeof signals[0]; index++) {
        struct sigaction current;
        if (sigaction(signals[index], NULL, &current) != 0 || !(current.sa_flags & SA_SIGINFO)) continue;
        Dl_info where;
        if (!dladdr((void *)current.sa_sigaction, &where) || !named_swift_core(where.dli_fname)) continue;
        restore_default(signals[index]);
    }
}
