/* Linux process calls the Glibc module leaves out or cannot call (variadic syscall). */
#include <spawn.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A descriptor that becomes readable when process `pid` ends; -1 with errno when unsupported. */
static inline int deck_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/* Closes every descriptor from `first` up; falls back to a loop where close_range is missing. */
static inline void deck_close_from(int first) {
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0) return;
    long max = sysconf(_SC_OPEN_MAX);
    for (int fd = first; fd < (max > 0 ? max : 1024); fd++) close(fd);
}

/* The pid and uid of a Unix socket's peer (SO_PEERCRED, which needs _GNU_SOURCE's struct ucred);
   0, or -1 with errno. */
static inline int deck_peer_credentials(int fd, pid_t *pid, uid_t *uid) {
    struct { pid_t pid; uid_t uid; gid_t gid; } credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    return 0;
}

static inline int deck_no_new_privs(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }
static inline int deck_parent_death_signal(int sig) { return prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0); }

/* Reaps the child `pid` (through `pidfd` when it is not -1) if it ended: 1 with how (CLD_EXITED,
   CLD_KILLED, CLD_DUMPED) and its status or signal, 0 while it runs, -1 with errno. */
static inline int deck_reap_child(int pidfd, pid_t pid, int *code, int *status) {
    siginfo_t info = {0};
    int ended = pidfd >= 0 ? waitid((idtype_t)3 /* P_PIDFD */, (id_t)pidfd, &info, WEXITED | WNOHANG)
                           : waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG);
    if (ended != 0) return -1;
    if (info.si_pid == 0) return 0;
    *code = info.si_code;
    *status = info.si_status;
    return 1;
}

/* glibc's, declared here because its header hides them without _GNU_SOURCE (which would make this
   module's system headers differ from every other module's). */
extern const char *sigabbrev_np(int sig);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
typedef struct { const char *dli_fname; void *dli_fbase; const char *dli_sname; void *dli_saddr; } deck_dl_info;
extern int dladdr(const void *address, deck_dl_info *info);

/* "SEGV" for SIGSEGV; NULL for an unknown number. */
static inline const char *deck_signal_name(int sig) { return sigabbrev_np(sig); }

/* An anonymous shared-memory file, closed on exec (memfd_create with MFD_CLOEXEC). */
static inline int deck_memfd(const char *name) { return (int)syscall(SYS_memfd_create, name, 1U /* MFD_CLOEXEC */); }

/* The file of the loaded image that holds `address` (an executable or shared library), or NULL. */
static inline const char *deck_image_path(const void *address) {
    deck_dl_info info;
    return dladdr(address, &info) != 0 ? info.dli_fname : NULL;
}

/* ─── Landlock (the kernel's ABI, declared here so an older linux/landlock.h does not matter) ─── */

/* The Landlock ABI the kernel offers (1…), or -1 with errno (ENOSYS, EOPNOTSUPP when disabled). */
static inline int deck_landlock_abi(void) { return (int)syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* _VERSION */); }

/* A ruleset handling these filesystem and TCP accesses and these scopes (each 0 when the ABI
   lacks it); a descriptor, or -1 with errno. */
static inline int deck_landlock_ruleset(unsigned long long fs, unsigned long long net, unsigned long long scoped) {
    struct { unsigned long long fs, net, scoped; } attr = { fs, net, scoped };
    size_t size = scoped ? 24 : net ? 16 : 8;
    return (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0U);
}

/* Allows `access` beneath the file or folder open as `parent` (O_PATH); 0, or -1 with errno. */
static inline int deck_landlock_allow_beneath(int ruleset, int parent, unsigned long long access) {
    struct __attribute__((packed)) { unsigned long long access; int parent; } rule = { access, parent };
    return (int)syscall(SYS_landlock_add_rule, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &rule, 0U);
}

/* Enforces the ruleset on this thread and what it starts later (needs no_new_privs); 0, or -1. */
static inline int deck_landlock_enforce(int ruleset) { return (int)syscall(SYS_landlock_restrict_self, ruleset, 0U); }

/* ─── Namespaces, memory, dumpability ─── */

/* unshare(2), which the Glibc module leaves out. */
extern int unshare(int flags);
static inline int deck_unshare_network(int with_user_namespace) {
    return unshare(0x40000000 /* CLONE_NEWNET */ | (with_user_namespace ? 0x10000000 /* CLONE_NEWUSER */ : 0));
}

static inline int deck_set_dumpable(int dumpable) { return prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0); }
