/* Linux process calls the Glibc module leaves out or cannot call (variadic syscall). */
#include <errno.h>
#include <spawn.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
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

/* Whether the child `pid` has ended, left a zombie for a later wait (WNOWAIT): 1, 0 while it runs
   or is not this process's child. */
static inline int deck_child_ended(pid_t pid) {
    siginfo_t info = {0};
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

/* Flushes stdout: 0, or the errno of the write that failed now (EIO for one that failed earlier,
   whose errno is gone). Clears the stream's error either way. */
static inline int deck_flush_standard_output(void) {
    int code = fflush(stdout) != 0 ? (errno ? errno : EIO) : ferror(stdout) ? EIO : 0;
    clearerr(stdout);
    return code;
}

/* glibc's, declared here because its header hides them without _GNU_SOURCE (which would make this
   module's system headers differ from every other module's). */
extern const char *sigabbrev_np(int sig);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int pipe2(int fds[2], int flags);
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

/* ─── A seccomp filter (classic BPF; the kernel's ABI, declared here with its numbers) ─── */

/* Refuses with EPERM, on every thread of this process and in everything it starts (a seccomp
   filter synchronised to all threads, SECCOMP_FILTER_FLAG_TSYNC, which also sets no_new_privs on
   them; the caller must have set it): prctl(`option`, …); every call of another ABI (x32 and
   i386 on x86-64, AArch32 on AArch64), as systemd's SystemCallArchitectures=native does; setting
   the nice value, I/O priority, scheduling, CPUs or resource limits of anything but the calling
   thread (setpriority and ioprio_set for another process, thread or the whole uid; sched_set*
   and prlimit64 for another pid), which a process of the same uid may otherwise do to the
   runtime; with `file_metadata`, what Landlock does not govern for a process on a uid that owns
   files beyond its own: changing a file's mode, owner or extended attributes (io_uring
   included, which can set them unfiltered) and the uid's kernel keyrings; with `unix_sockets`,
   making an AF_UNIX socket (local services trust a peer by its uid, and Landlock does not govern
   connecting by path). 0, or -1 with errno (ENOSYS on another CPU). */
static inline int deck_seccomp_refuse(unsigned option, int file_metadata, int unix_sockets) {
    /* What a rule refuses: the call; the call when its first argument is `value`; the call
       unless its first argument is 0 (the caller); the call unless its first argument is
       `value` and its second 0 (setpriority's and ioprio_set's which and who). */
    enum kind { always, when_first, unless_self, unless_first_and_self };
    struct rule { unsigned call; enum kind kind; unsigned value; };
#if defined(__x86_64__)
    const unsigned arch = 0xC000003E /* AUDIT_ARCH_X86_64 */, prctl_call = 157, socket_call = 41;
    static const struct rule scheduling[] = { { 141 /* setpriority */, unless_first_and_self, 0 /* PRIO_PROCESS */ },
        { 251 /* ioprio_set */, unless_first_and_self, 1 /* IOPRIO_WHO_PROCESS */ }, { 142 /* sched_setparam */, unless_self, 0 },
        { 144 /* sched_setscheduler */, unless_self, 0 }, { 203 /* sched_setaffinity */, unless_self, 0 },
        { 314 /* sched_setattr */, unless_self, 0 }, { 302 /* prlimit64 */, unless_self, 0 } };
    static const unsigned metadata[] = { 90, 91, 92, 93, 94 /* chmod fchmod chown fchown lchown */,
        188, 189, 190, 197, 198, 199 /* setxattr lsetxattr fsetxattr removexattr lremovexattr fremovexattr */,
        248, 249, 250 /* add_key request_key keyctl */, 260, 268 /* fchownat fchmodat */,
        425, 426, 427 /* io_uring_setup _enter _register */, 452 /* fchmodat2 */, 463, 466 /* setxattrat removexattrat */ };
#elif defined(__aarch64__)
    const unsigned arch = 0xC00000B7 /* AUDIT_ARCH_AARCH64 */, prctl_call = 167, socket_call = 198;
    static const struct rule scheduling[] = { { 140, unless_first_and_self, 0 }, { 30, unless_first_and_self, 1 },
        { 118, unless_self, 0 }, { 119, unless_self, 0 }, { 122, unless_self, 0 }, { 274, unless_self, 0 }, { 261, unless_self, 0 } };
    static const unsigned metadata[] = { 5, 6, 7, 14, 15, 16 /* setxattr … fremovexattr */, 52, 53, 54, 55 /* fchmod fchmodat fchownat fchown */,
        217, 218, 219 /* add_key request_key keyctl */, 425, 426, 427, 452, 463, 466 };
#else
    (void)option; (void)file_metadata; (void)unix_sockets;
    errno = ENOSYS;
    return -1;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
    enum { schedulings = sizeof scheduling / sizeof scheduling[0], metadatas = sizeof metadata / sizeof metadata[0], most = 2 + schedulings + metadatas };
    static const unsigned block[] = { [always] = 0, [when_first] = 3, [unless_self] = 3, [unless_first_and_self] = 5 };
    struct rule rules[most];
    unsigned count = 0, blocks = 0;
    rules[count++] = (struct rule){ prctl_call, when_first, option };
    if (unix_sockets) rules[count++] = (struct rule){ socket_call, when_first, 1 /* AF_UNIX */ };
    for (unsigned i = 0; i < schedulings; i++) rules[count++] = scheduling[i];
    for (unsigned i = 0; file_metadata && i < metadatas; i++) rules[count++] = (struct rule){ metadata[i], always, 0 };
    for (unsigned i = 0; i < count; i++) blocks += block[rules[i].kind];
    /* struct seccomp_data: nr at 0, arch at 4, args[0] at 16 and args[1] at 24 (their low halves:
       each argument checked is an int). */
    enum { load = 0x20, jeq = 0x15, jge = 0x35, ret = 0x06 };
    const unsigned allow = 0x7fff0000U /* SECCOMP_RET_ALLOW */, refuse = 0x00050000U /* SECCOMP_RET_ERRNO */ | EPERM;
    const unsigned checks = 5, refusal = checks + count + 1 + blocks;  /* where each part starts */
    struct { unsigned short code; unsigned char jt, jf; unsigned k; } program[checks + most + 1 + 5 * most + 1];
    unsigned n = 0;
    #define DECK_BPF(c, t, f, value) program[n].code = (c), program[n].jt = (unsigned char)(t), program[n].jf = (unsigned char)(f), program[n].k = (value), n++
    DECK_BPF(load, 0, 0, 4);                            /* the ABI */
    DECK_BPF(jeq, 1, 0, arch);
    DECK_BPF(ret, 0, 0, refuse);                        /* another ABI */
    DECK_BPF(load, 0, 0, 0);                            /* the call */
    DECK_BPF(jge, refusal - n - 1, 0, 0x40000000U);     /* x32's calls */
    for (unsigned i = 0, start = checks + count + 1; i < count; i++) {
        DECK_BPF(jeq, (rules[i].kind == always ? refusal : start) - n - 1, 0, rules[i].call);
        start += block[rules[i].kind];
    }
    DECK_BPF(ret, 0, 0, allow);
    for (unsigned i = 0; i < count; i++) {
        switch (rules[i].kind) {
        case always: break;
        case when_first:
            DECK_BPF(load, 0, 0, 16);
            DECK_BPF(jeq, refusal - n - 1, 0, rules[i].value);
            DECK_BPF(ret, 0, 0, allow);
            break;
        case unless_self:
            DECK_BPF(load, 0, 0, 16);
            DECK_BPF(jeq, 0, refusal - n - 1, 0);
            DECK_BPF(ret, 0, 0, allow);
            break;
        case unless_first_and_self:
            DECK_BPF(load, 0, 0, 16);
            DECK_BPF(jeq, 0, refusal - n - 1, rules[i].value);
            DECK_BPF(load, 0, 0, 24);
            DECK_BPF(jeq, 0, refusal - n - 1, 0);
            DECK_BPF(ret, 0, 0, allow);
            break;
        }
    }
    DECK_BPF(ret, 0, 0, refuse);
    #undef DECK_BPF
    struct { unsigned short length; void *filter; } fprog = { (unsigned short)n, program };
    long done = syscall(SYS_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, 1U /* SECCOMP_FILTER_FLAG_TSYNC */, &fprog);
    if (done > 0) { errno = EBUSY; return -1; }  /* the id of a thread that could not take it */
    return (int)done;
#endif
}

/* Whether this process may install a seccomp filter that answers with an errno (a unit's own
   filter can refuse the seccomp call itself): 1, or 0 with errno. */
static inline int deck_seccomp_available(void) {
    unsigned action = 0x00050000U /* SECCOMP_RET_ERRNO */;
    return syscall(SYS_seccomp, 2 /* SECCOMP_GET_ACTION_AVAIL */, 0U, &action) == 0;
}

/* Gives up every capability on the calling thread (capabilities are a thread's): effective,
   permitted, inheritable and ambient, and the bounding set where it may (CAP_SETPCAP). For a
   host that keeps uid 0. 0, or -1 with errno. */
static inline int deck_drop_capabilities(void) {
    (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    for (int capability = 0; capability < 64; capability++) (void)prctl(PR_CAPBSET_DROP, capability, 0, 0, 0);
    struct { unsigned version; int pid; } header = { 0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0 };
    struct { unsigned effective, permitted, inheritable; } none[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
    return (int)syscall(SYS_capset, &header, none);
}

/* ─── Namespaces, memory, dumpability ─── */

/* unshare(2), which the Glibc module leaves out. */
extern int unshare(int flags);
static inline int deck_unshare_network(int with_user_namespace) {
    return unshare(0x40000000 /* CLONE_NEWNET */ | (with_user_namespace ? 0x10000000 /* CLONE_NEWUSER */ : 0));
}

static inline int deck_set_dumpable(int dumpable) { return prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0); }
/* Orphans among this process's descendants become its children instead of init's. */
static inline int deck_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/* ─── The hosts' zygote ─── */

/* fork(), but the child's parent is this process's parent (CLONE_PARENT): a process forked by
   a zygote is the runtime's child, which reaps it and reads its exit status. Only for a
   single-threaded caller (glibc's fork handlers do not run). 0 in the child, the pid, or -1. */
static inline pid_t deck_fork_sibling(void) {
    return (pid_t)syscall(SYS_clone, 0x00008000UL /* CLONE_PARENT */ | SIGCHLD, 0, 0, 0, 0);
}

/* Sends one record with `count` descriptors (SCM_RIGHTS); the bytes sent, or -1 with errno. */
static inline long deck_send_with_descriptors(int socket, const void *bytes, size_t length, const int *descriptors, int count) {
    union { char space[CMSG_SPACE(sizeof(int) * 8)]; struct cmsghdr align; } control;
    struct iovec part = { (void *)bytes, length };
    struct msghdr message = { .msg_iov = &part, .msg_iovlen = 1 };
    if (count > 8) { errno = EINVAL; return -1; }
    if (count > 0) {
        message.msg_control = control.space;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
        for (int i = 0; i < count; i++) ((int *)CMSG_DATA(header))[i] = descriptors[i];
    }
    return (long)sendmsg(socket, &message, 0x4000 /* MSG_NOSIGNAL */);
}

/* Receives one record and up to `capacity` descriptors (closed on exec; more are closed);
   the bytes received (0 at the end), or -1 with errno. */
static inline long deck_receive_with_descriptors(int socket, void *bytes, size_t length, int *descriptors, int capacity, int *count) {
    union { char space[CMSG_SPACE(sizeof(int) * 8)]; struct cmsghdr align; } control;
    struct iovec part = { bytes, length };
    struct msghdr message = { .msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space };
    long received = (long)recvmsg(socket, &message, 0x40000000 /* MSG_CMSG_CLOEXEC */);
    *count = 0;
    if (received < 0) return -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int n = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *passed = (int *)CMSG_DATA(header);
        for (int i = 0; i < n; i++) {
            if (*count < capacity) descriptors[(*count)++] = passed[i];
            else close(passed[i]);
        }
    }
    if (message.msg_flags & (0x20 | 0x8) /* MSG_TRUNC, MSG_CTRUNC */) { for (int i = 0; i < *count; i++) close(descriptors[i]); *count = 0; errno = EMSGSIZE; return -1; }
    return received;
}

/* setns(2) into the network namespace open as `descriptor`; 0, or -1 with errno. */
extern int setns(int fd, int nstype);
static inline int deck_set_network(int descriptor) { return setns(descriptor, 0x40000000 /* CLONE_NEWNET */); }

/* Names the calling thread (the process's name in ps and top when it is the main thread); the
   kernel keeps 15 bytes. */
static inline void deck_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

/* The calling thread's kernel id (gettid), which glibc declares only with _GNU_SOURCE. */
static inline pid_t deck_thread_id(void) { return (pid_t)syscall(SYS_gettid); }

/* Runs the calling thread on CPU `cpu` only (sched_setaffinity, which needs _GNU_SOURCE's
   cpu_set_t macros); 0, or -1 with errno. For measurements that must not cross CPUs. */
static inline int deck_pin_thread(int cpu) {
    unsigned long mask[16] = {0};
    if (cpu < 0 || cpu >= (int)(sizeof mask * 8)) { errno = EINVAL; return -1; }
    mask[cpu / (8 * sizeof mask[0])] = 1UL << (cpu % (8 * sizeof mask[0]));
    return (int)syscall(SYS_sched_setaffinity, 0, sizeof mask, mask);
}

/* sock_diag's messages (linux/netlink.h, linux/inet_diag.h), spelt here to keep this module to
   glibc's headers; their layout is the kernel's ABI. */
struct deck_netlink_header { unsigned int length; unsigned short type, flags; unsigned int sequence, port; };
struct deck_diag_socket { unsigned short source_port, destination_port; unsigned int source[4], destination[4], interface, cookie[2]; };
struct deck_diag_request { unsigned char family, protocol, extensions, pad; unsigned int states; struct deck_diag_socket id; };
struct deck_diag_answer {
    unsigned char family, state, timer, retransmits;
    struct deck_diag_socket id;
    unsigned int expires, receive_queue, send_queue, uid, inode;
};
struct deck_netlink_address { unsigned short family, pad; unsigned int port, groups; };

/* A netlink socket for sock_diag (closed on exec), for a caller that asks often and keeps it;
   -1 with errno. SOCK_DGRAM | SOCK_CLOEXEC, spelt out: naming them here hid them from Swift
   files importing only Glibc. */
static inline int deck_sock_diag_open(void) { return socket(AF_NETLINK, 2 | 02000000, 4 /* NETLINK_SOCK_DIAG */); }

/* The uid and inode of a socket of this machine, asked of the kernel by sock_diag (one lookup
   where /proc/net/tcp and /proc/net/udp print every socket of the machine): for `protocol` 6
   (TCP), the one whose own end is `source` and other end `destination`; for 17 (UDP), the one a
   datagram from `source` to `destination` would reach. Both IPv4 or both IPv6. Asked through
   `netlink` (from deck_sock_diag_open), or -1 for a socket of this lookup's own. 0, or -1 with
   errno (ENOENT: no such socket). */
static inline int deck_socket_owner(int netlink, int protocol, const struct sockaddr *source, const struct sockaddr *destination,
                                    uid_t *uid, unsigned long long *inode) {
    struct { struct deck_netlink_header header; struct deck_diag_request request; } message;
    __builtin_memset(&message, 0, sizeof message);
    message.header.length = sizeof message;
    message.header.type = 20;    /* SOCK_DIAG_BY_FAMILY */
    message.header.flags = 1;    /* NLM_F_REQUEST: one socket, no dump */
    message.request.family = (unsigned char)source->sa_family;
    message.request.protocol = (unsigned char)protocol;
    message.request.states = ~0U;
    message.request.id.cookie[0] = message.request.id.cookie[1] = ~0U;  /* INET_DIAG_NOCOOKIE */
    /* sockaddr_in: family, port, address at 4; sockaddr_in6: family, port, flow, address at 8. */
    size_t offset, length;
    if (source->sa_family == AF_INET && destination->sa_family == AF_INET) { offset = 4; length = 4; }
    else if (source->sa_family == AF_INET6 && destination->sa_family == AF_INET6) { offset = 8; length = 16; }
    else { errno = EAFNOSUPPORT; return -1; }
    __builtin_memcpy(&message.request.id.source_port, (const char *)source + 2, 2);
    __builtin_memcpy(&message.request.id.destination_port, (const char *)destination + 2, 2);
    __builtin_memcpy(message.request.id.source, (const char *)source + offset, length);
    __builtin_memcpy(message.request.id.destination, (const char *)destination + offset, length);
    int fd = netlink >= 0 ? netlink : deck_sock_diag_open();
    if (fd < 0) return -1;
    struct deck_netlink_address kernel = { .family = AF_NETLINK };
    union { struct deck_netlink_header header; char bytes[4096]; } answer;
    /* The kernel answers within sendto: on a kept socket, an answer still queued is one an
       earlier lookup never read. */
    while (netlink >= 0 && recv(fd, &answer, sizeof answer, 0x40 /* MSG_DONTWAIT */) > 0) {}
    ssize_t got = sendto(fd, &message, sizeof message, 0, (const struct sockaddr *)&kernel, sizeof kernel) < 0 ? -1
                : recv(fd, &answer, sizeof answer, 0);
    int saved = errno;
    if (netlink < 0) close(fd);
    errno = saved;
    if (got < 0) return -1;
    if ((size_t)got < sizeof answer.header || answer.header.length > (size_t)got) { errno = EIO; return -1; }
    if (answer.header.type == 2 /* NLMSG_ERROR */) {
        int error = 0;
        if (answer.header.length >= sizeof answer.header + sizeof error) __builtin_memcpy(&error, answer.bytes + sizeof answer.header, sizeof error);
        errno = error < 0 ? -error : EIO;
        return -1;
    }
    if (answer.header.type != 20 || answer.header.length < sizeof answer.header + sizeof(struct deck_diag_answer)) { errno = EIO; return -1; }
    struct deck_diag_answer found;
    __builtin_memcpy(&found, answer.bytes + sizeof answer.header, sizeof found);
    *uid = found.uid;
    *inode = found.inode;
    return 0;
}

/* A netlink route socket told of every IPv4 and IPv6 address this machine gains or loses (closed
   on exec, read without waiting); -1 with errno. SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK and the
   groups RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR, spelt out as above. */
static inline int deck_address_changes_open(void) {
    int fd = socket(AF_NETLINK, 3 | 02000000 | 04000, 0 /* NETLINK_ROUTE */);
    if (fd < 0) return -1;
    struct deck_netlink_address local = { .family = AF_NETLINK, .groups = 0x10 | 0x100 };
    if (bind(fd, (const struct sockaddr *)&local, sizeof local) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* Reads every message waiting on `fd` (from deck_address_changes_open): 1 when there was one or
   the kernel dropped some (ENOBUFS), 0 when there was none, -1 with errno. */
static inline int deck_address_changes_drain(int fd) {
    char scratch[16];
    int any = 0;
    for (;;) {
        if (recv(fd, scratch, sizeof scratch, 0x40 /* MSG_DONTWAIT */ | 0x20 /* MSG_TRUNC */) >= 0) { any = 1; continue; }
        if (errno == EINTR) continue;
        if (errno == ENOBUFS) { any = 1; continue; }
        return errno == EAGAIN ? any : -1;
    }
}

/* sem_clockwait (glibc 2.30), which <semaphore.h> declares only under _GNU_SOURCE. */
extern int sem_clockwait(sem_t *semaphore, clockid_t clock, const struct timespec *deadline);

/* Waits on `semaphore` until `deadline` on CLOCK_MONOTONIC: a wall clock set back meanwhile (a car's
   clock set from GPS or the network) does not stretch the wait, as it would sem_timedwait's. */
static inline int deck_semaphore_wait_until(sem_t *semaphore, const struct timespec *deadline) {
    return sem_clockwait(semaphore, CLOCK_MONOTONIC, deadline);
}
