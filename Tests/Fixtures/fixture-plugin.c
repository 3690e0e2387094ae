/*
 * A configurable plugin for the loader and lifecycle tests. Each test compiles
 * it with -D switches to produce exactly the fault it checks:
 *   FIXTURE_ID="..."             descriptor id (default org.deck.test.fixture)
 *   FIXTURE_ENTRY_MAJOR / _MINOR ABI version in the entry struct
 *   FIXTURE_NO_ENTRY             do not export deck_plugin_entry
 *   FIXTURE_ENTRY_INIT_FAILS     entry->init returns false
 *   FIXTURE_CREATE_FAILS         entry->create returns NULL
 *   FIXTURE_PLUGIN_INIT_FAILS    plugin->init logs an error and fails
 *   FIXTURE_NO_DEACTIVATE        leave plugin->deactivate NULL
 *   FIXTURE_HOSTILE_LOG          on activate, log forged lines, a 5000-byte line and 1000 lines at once, then
 *                                from a thread 100 lines 10 ms apart ("paced"), and 300 ms later "paced end"
 *   FIXTURE_STREAM_IN_INIT       call open_stream from init and log what last_error says
 *   FIXTURE_COMMANDS=MASK        the remote commands it enables (default play, pause, next, seek)
 *   FIXTURE_COMMAND_RESULT=N     how it answers them (default 0, success; -1 pending until a callback)
 *   FIXTURE_SLOW_CALLBACK        on_callback sleeps 150 ms on the loop thread (FIXTURE_SLOW_CALLBACK_MS: that long)
 *   FIXTURE_HANG_ACTIVATE        activate never returns
 *   FIXTURE_CALLBACK_FAULT=N     the Nth on_callback segfaults
 *   FIXTURE_INIT_FAULT           plugin->init segfaults
 *   FIXTURE_CALLBACK_BLOCKS      on_callback never returns
 *   FIXTURE_LINGER               destroy leaves a thread running in the library
 *   FIXTURE_HELPER               activate starts a helper process (setsid, sleeps) that destroy leaves running
 *   FIXTURE_LEAK                 each instance opens a pipe, starts a thread blocked reading it and fills 8 MiB, all left after destroy
 *   FIXTURE_ONCE                 the library pins itself loaded (RTLD_NODELETE) and its second create fails
 *   FIXTURE_STOPS_ON_TRANSIENT / FIXTURE_STOPS_ON_DUCK   stops (closes its stream, abandons focus) on that focus change
 *   FIXTURE_WRONG_THREAD         on start, also publishes now playing from a thread of its own (refused)
 *   FIXTURE_NO_NOW_PLAYING       plays without publishing now playing
 *   FIXTURE_STALE_LOCK           activate makes "lock" in its data folder and refuses when it is already there
 *   FIXTURE_ELAPSED=S / FIXTURE_DURATION=S   the elapsed time and duration it publishes (default 0 and 60)
 *   FIXTURE_GREEDY_CALLBACK=MS   on_callback spins MS ms on the loop thread and asks for another callback
 *   FIXTURE_COMPLETE_INSIDE      with FIXTURE_COMMAND_RESULT=-1, completes each command inside the command call
 *   FIXTURE_SANDBOX_PROBE        on activate, tries what a hostile plugin would and logs each outcome ("sandbox: …"):
 *                                FIXTURE_SOCKET the control socket, FIXTURE_VICTIM another bundle's manifest,
 *                                FIXTURE_TOKEN the TCP token file, FIXTURE_TCP_PORT deckd's TCP port (0: none),
 *                                FIXTURE_HTTP_PORT the port of deckd's HTTP sink at /stream.opus (0: none), both
 *                                again from an interface's address of this machine ("tcp from interface", "http from interface"),
 *                                FIXTURE_MEDIA a file in a media folder, FIXTURE_OWN_MANIFEST its own manifest,
 *                                FIXTURE_BUS a session bus where deckd is the MPRIS player (it calls PlayPause: "mpris");
 *                                a setsid grandchild, once its parent ended and deckd adopted it, tries the control
 *                                socket, TCP port and HTTP sink again and writes what each did to "orphan" in its data
 *                                folder ("control: …" a line each), then its pid to "pid"; a helper it leaves to end
 *                                on its own writes its pid to "ended" first; its first render tries
 *                                the token, deckd's environ, the victim, a signal and clearing the host's subreaper
 *                                flag from the render thread ("sandbox: render …"); both threads log their capabilities;
 *                                it sets deckd's nice value, limits, CPUs, scheduling and I/O priority to what they are,
 *                                and its uid's nice value (an unused uid, so nothing changes), and its own thread's;
 *                                with FIXTURE_TCP_PORT, it binds a UDP socket on loopback and logs its port ("udp receiver");
 *                                with FIXTURE_PROCESSES=N, it forks up to N children and logs how many it made ("processes"),
 *                                holding them FIXTURE_PROCESSES_HOLD_MS first when that is given
 *                                ("caps: none"); it also tries to chmod the token, set an extended attribute on the
 *                                victim's manifest, make a Unix socket, reach its uid's kernel keyring and make its
 *                                thread real-time
 * It logs every lifecycle call ("lifecycle: init", …) so tests can check the order,
 * and on activate it asks for callbacks from a second thread.
 *
 * It offers deck.audio; the item chooses what render() does:
 *   "sine-F"     a sine of F Hz on both channels at -12 dBFS
 *   "underrun"   a 440 Hz sine, but only half of each frame asked for
 *   "nan"        a 440 Hz sine with NaN written into every other frame
 *   "loud"       a square wave at 4.0 (far over full scale)
 *   "silence"    zeros
 *   "denormal"   a 440 Hz sine with a denormal (1e-40) in every frame's first right sample
 *   "hang"       a 440 Hz sine for 10 frames, then a render that never returns
 *   "stall"      the same, then one render that takes 200 ms, then the sine again
 *   "spin"       the same, then a render that spins for ever
 *   "segv"       the same, then a render that segfaults
 *   "exit"       the same, then a render that calls exit(0)
 *   "garbage"    a 440 Hz sine, after writing garbage to descriptor 3 (a host process's socket)
 *   "flood"      a 440 Hz sine, while a thread writes well-formed heartbeats to descriptor 3 for ever
 *   "block"      a start that never returns
 * followed by "@CONTEXT" and "/TYPE" for the focus it requests first
 * (default music, gain 1), e.g. "sine-440@navigation/3". It logs focus and
 * session changes ("focus: -2 resume=0", "session: 1").
 *
 * Once playing it publishes now playing (title: the item, 60 s long) and a queue of two items,
 * and logs the status ("now playing: 0"); it logs each remote command ("command: 6 value=30").
 * Later callbacks complete a pending command and re-anchor the position, logging both.
 */
#define _GNU_SOURCE
#include <deck/deck.h>

#include <dlfcn.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef FIXTURE_SANDBOX_PROBE
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#endif

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.deck.test.fixture"
#endif
#ifndef FIXTURE_ENTRY_MAJOR
#define FIXTURE_ENTRY_MAJOR DECK_ABI_VERSION_MAJOR
#endif
#ifndef FIXTURE_ENTRY_MINOR
#define FIXTURE_ENTRY_MINOR DECK_ABI_VERSION_MINOR
#endif

typedef enum { AUDIO_SINE, AUDIO_UNDERRUN, AUDIO_NAN, AUDIO_LOUD, AUDIO_SILENCE, AUDIO_DENORMAL, AUDIO_DC, AUDIO_HANG, AUDIO_SPIN, AUDIO_SEGV,
               AUDIO_EXIT, AUDIO_STALL, AUDIO_SLOW, AUDIO_PRODUCED } audio_mode_t;

/* The "produced" items' audio: a thread of the plugin's own makes a sine in real time, 20 ms
 * every 20 ms, into a ring that render reads, as a network client or a decoder would. */
#define PRODUCED_FRAMES 48000
typedef struct producer {
    pthread_t thread;
    int started;
    atomic_int stop;
    atomic_ulong written, read;
    double phase;
    float ring[PRODUCED_FRAMES * 2];
} producer_t;

typedef struct fixture {
    deck_plugin_t plugin;
    const deck_host_t *host;
    pthread_t thread;
    int thread_started;
    audio_mode_t mode;
    double frequency;
    double phase;
    unsigned long frames_rendered;
    int published;
    uint64_t pending_token;
    producer_t producer;
    /* "produced-waits": in freewheel, render waits for the producer (up to 40 ms) rather than play silence. */
    int waits_in_freewheel, freewheeling;
} fixture_t;

#ifndef FIXTURE_COMMANDS
#define FIXTURE_COMMANDS (DECK_COMMAND_BIT(DECK_COMMAND_PLAY) | DECK_COMMAND_BIT(DECK_COMMAND_PAUSE) | \
                          DECK_COMMAND_BIT(DECK_COMMAND_NEXT) | DECK_COMMAND_BIT(DECK_COMMAND_SEEK))
#endif
#ifndef FIXTURE_ELAPSED
#define FIXTURE_ELAPSED 0
#endif
#ifndef FIXTURE_DURATION
#define FIXTURE_DURATION 60
#endif
#ifndef FIXTURE_COMMAND_RESULT
#define FIXTURE_COMMAND_RESULT DECK_COMMAND_SUCCESS
#endif

static const deck_plugin_descriptor_t fixture_descriptor = {
    .abi = DECK_ABI_VERSION_INIT,
    .id = FIXTURE_ID,
    .name = "Fixture",
    .version = "1.0.0",
};

static void say(const deck_plugin_t *plugin, const char *what) {
    fixture_t *f = plugin->plugin_data;
    f->host->log(f->host, DECK_LOG_INFO, what);
}

#ifdef FIXTURE_HOSTILE_LOG
static void *paced_log_thread(void *arg) {
    const deck_plugin_t *plugin = arg;
    for (int i = 0; i < 100; i++) {
        say(plugin, "paced");
        usleep(10000);
    }
    usleep(300000);
    say(plugin, "paced end");
    return NULL;
}
#endif

static void *request_thread(void *arg) {
    fixture_t *f = arg;
    /* Three requests from one thread coalesce into at most three, at least one, callbacks. */
    for (int i = 0; i < 3; i++) f->host->request_callback(f->host);
    return NULL;
}

static deck_status_t fixture_init(const deck_plugin_t *plugin) {
#ifdef FIXTURE_INIT_FAULT
    *(volatile int *)8 = 1;
#endif
#ifdef FIXTURE_PLUGIN_INIT_FAILS
    fixture_t *f = plugin->plugin_data;
    f->host->log(f->host, DECK_LOG_ERROR, "cannot find my tuner");
    return DECK_E_INTERNAL;
#else
#ifdef FIXTURE_STREAM_IN_INIT
    fixture_t *f = plugin->plugin_data;
    const deck_host_audio_t *audio = f->host->get_extension(f->host, DECK_EXT_AUDIO);
    deck_status_t status = audio->open_stream(f->host);
    char line[300];
    snprintf(line, sizeof line, "init open_stream: %d %s", (int)status, f->host->last_error(f->host));
    say(plugin, line);
#endif
    say(plugin, "lifecycle: init");
    return DECK_OK;
#endif
}

#ifdef FIXTURE_SANDBOX_PROBE
static void probe_say(const deck_plugin_t *plugin, const char *what, const char *outcome) {
    char line[300];
    snprintf(line, sizeof line, "sandbox: %s: %s", what, outcome);
    say(plugin, line);
}

/* Steer the runtime through its control socket. */
static void try_control(char *outcome, size_t size) {
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    struct timeval patience = { .tv_sec = 5 };
    setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    snprintf(address.sun_path, sizeof address.sun_path, "%s", FIXTURE_SOCKET);
    if (sock < 0) {
        snprintf(outcome, size, "refused (no Unix socket: %s)", strerror(errno));
        return;
    } else if (connect(sock, (struct sockaddr *)&address, sizeof address) != 0) {
        snprintf(outcome, size, "refused (%s)", strerror(errno));
    } else {
        static const char request[] = "{\"jsonrpc\":\"2.0\",\"method\":\"apps.unload\",\"params\":{\"id\":\"org.deck.test.victim\"},\"id\":1}\n";
        char answer[512] = "";
        if (send(sock, request, sizeof request - 1, MSG_NOSIGNAL) < 0) {}  /* deckd may have closed it: no SIGPIPE */
        ssize_t got = read(sock, answer, sizeof answer - 1);
        answer[got > 0 ? got : 0] = 0;
        if (strstr(answer, "\"result\"")) snprintf(outcome, size, "ANSWERED %.150s", answer);
        else snprintf(outcome, size, "refused (%.150s)", answer);
    }
    close(sock);
}

/* The IPv4 address of an interface of this machine that is up, not loopback (network order); 0 if none. */
static in_addr_t interface_address(void) {
    struct ifaddrs *all = NULL;
    in_addr_t found = 0;
    if (getifaddrs(&all) != 0) return 0;
    for (struct ifaddrs *one = all; one && !found; one = one->ifa_next) {
        if (one->ifa_addr && one->ifa_addr->sa_family == AF_INET && (one->ifa_flags & IFF_UP) && !(one->ifa_flags & IFF_LOOPBACK))
            found = ((struct sockaddr_in *)one->ifa_addr)->sin_addr.s_addr;
    }
    freeifaddrs(all);
    return found;
}

#ifdef FIXTURE_BUS
/* Steer the runtime's MPRIS player on its session bus FIXTURE_BUS, through dbus-send (a Unix
   socket: it needs the services permission). */
static void try_mpris(char *outcome, size_t size) {
    int out[2];
    if (pipe(out) != 0) { snprintf(outcome, size, "refused (pipe: %s)", strerror(errno)); return; }
    pid_t child = fork();
    if (child == 0) {
        dup2(out[1], 1);
        dup2(out[1], 2);
        close(out[0]);
        execl("/usr/bin/dbus-send", "dbus-send", "--bus=" FIXTURE_BUS, "--print-reply", "--reply-timeout=5000",
              "--dest=org.mpris.MediaPlayer2.deck", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player.PlayPause", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char answer[512] = "";
    size_t got = 0;
    ssize_t n;
    while (got < sizeof answer - 1 && (n = read(out[0], answer + got, sizeof answer - 1 - got)) > 0) got += (size_t)n;
    answer[got] = 0;
    close(out[0]);
    if (child > 0) waitpid(child, NULL, 0);
    for (char *c = answer; *c; c++) if (*c == '\n') *c = ' ';
    snprintf(outcome, size, strstr(answer, "AccessDenied") ? "refused (%.200s)" : "ANSWERED (%.200s)", answer);
}
#endif

/* A TCP connection to 127.0.0.1:port, from address `from` when it is not 0 (network order),
   whose reads wait at most `seconds`; -1 with errno. */
static int connect_loopback(int port, int seconds, in_addr_t from) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in loopback = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    loopback.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval patience = { .tv_sec = seconds };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    struct sockaddr_in source = { .sin_family = AF_INET, .sin_addr.s_addr = from };
    if ((from == 0 || bind(fd, (struct sockaddr *)&source, sizeof source) == 0)
        && connect(fd, (struct sockaddr *)&loopback, sizeof loopback) == 0) return fd;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* Steer the runtime through its TCP port (a client deckd takes for one waits for its token),
   from `from` when it is not 0. */
static void try_tcp(char *outcome, size_t size, in_addr_t from) {
    int tcp = connect_loopback(FIXTURE_TCP_PORT, 5, from);
    if (tcp < 0) {
        snprintf(outcome, size, "refused (%s)", strerror(errno));
    } else {
        char answer[512] = "";
        ssize_t got = read(tcp, answer, sizeof answer - 1);
        answer[got > 0 ? got : 0] = 0;
        snprintf(outcome, size, strstr(answer, "-32005") ? "refused (%.150s)" : "CONNECTED (%.150s)", answer);
        close(tcp);
    }
}

/* Record the car's audio from its HTTP sink, from `from` when it is not 0. */
static void try_http(char *outcome, size_t size, in_addr_t from) {
    int http = connect_loopback(FIXTURE_HTTP_PORT, 2, from);
    if (http < 0) {
        snprintf(outcome, size, "refused (%s)", strerror(errno));
    } else {
        /* Silent first: a connection the sink keeps open holds one of its listeners' places. */
        char answer[512] = "";
        ssize_t got = read(http, answer, sizeof answer - 1);
        int held = got <= 0;
        if (held) {
            static const char request[] = "GET /stream.opus HTTP/1.1\r\nHost: localhost\r\n\r\n";
            got = send(http, request, sizeof request - 1, MSG_NOSIGNAL) > 0 ? read(http, answer, sizeof answer - 1) : -1;
        }
        answer[got > 0 ? got : 0] = 0;
        for (char *c = answer; *c; c++) if (*c == '\r' || *c == '\n') *c = ' ';
        snprintf(outcome, size, !strstr(answer, " 403 ") ? "HEARD (%.150s)" : held ? "HELD A PLACE, then refused (%.150s)"
                                                                                     : "refused (%.150s)", answer);
        close(http);
    }
}

/* A setsid grandchild once its parent ended and it was adopted: what it reached, a line per attempt, into `path`. */
static void orphan_attempts(pid_t parent, const char *path) {
    for (int i = 0; i < 500 && getppid() == parent; i++) usleep(10000);
    char report[2048], outcome[200];
    int length = 0;
    try_control(outcome, sizeof outcome);
    length += snprintf(report + length, sizeof report - (size_t)length, "control: %s\n", outcome);
    if (FIXTURE_TCP_PORT > 0) {
        try_tcp(outcome, sizeof outcome, 0);
        length += snprintf(report + length, sizeof report - (size_t)length, "tcp: %s\n", outcome);
    }
    if (FIXTURE_HTTP_PORT > 0) {
        try_http(outcome, sizeof outcome, 0);
        length += snprintf(report + length, sizeof report - (size_t)length, "http: %s\n", outcome);
    }
    int written = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (written >= 0) { if (write(written, report, (size_t)length) < 0) {} close(written); }
}

/* The calling thread's effective capabilities: "none", or "HELD <mask>". */
static void capabilities(char *outcome, size_t size) {
    char status[4096] = "";
    int fd = open("/proc/thread-self/status", O_RDONLY);
    ssize_t got = fd >= 0 ? read(fd, status, sizeof status - 1) : -1;
    if (fd >= 0) close(fd);
    status[got > 0 ? got : 0] = 0;
    const char *line = strstr(status, "CapEff:\t");
    if (!line) snprintf(outcome, size, "UNREADABLE (%s)", strerror(errno));
    else if (strncmp(line + 8, "0000000000000000", 16) == 0) snprintf(outcome, size, "none");
    else snprintf(outcome, size, "HELD %.16s", line + 8);
}

/* Sets deckd's (the host's parent's) nice value, resource limits, CPUs, scheduling policy and
   I/O priority each to what it is, so nothing changes where the kernel lets it; then the nice value
   of every process of an unused uid (none, so ESRCH where the call is let through). */
static void try_scheduling(const deck_plugin_t *plugin) {
    char outcome[200];
    pid_t deckd = getppid();
    errno = 0;
    int nice_value = getpriority(PRIO_PROCESS, (id_t)deckd);
    int reniced = errno == 0 && setpriority(PRIO_PROCESS, (id_t)deckd, nice_value) == 0;
    snprintf(outcome, sizeof outcome, reniced ? "CHANGED" : "refused (%s)", strerror(errno));
    probe_say(plugin, "renice deckd", outcome);
    struct rlimit limit;
    int limited = prlimit(deckd, RLIMIT_NOFILE, NULL, &limit) == 0 && prlimit(deckd, RLIMIT_NOFILE, &limit, NULL) == 0;
    snprintf(outcome, sizeof outcome, limited ? "CHANGED" : "refused (%s)", strerror(errno));
    probe_say(plugin, "limit deckd", outcome);
    cpu_set_t cpus;
    int pinned = sched_getaffinity(deckd, sizeof cpus, &cpus) == 0 && sched_setaffinity(deckd, sizeof cpus, &cpus) == 0;
    snprintf(outcome, sizeof outcome, pinned ? "CHANGED" : "refused (%s)", strerror(errno));
    probe_say(plugin, "pin deckd", outcome);
    struct sched_param parameters = { .sched_priority = 0 };
    int policy = sched_getscheduler(deckd);  /* deckd's loop thread: normal scheduling, so setting it again changes nothing */
    if (policy != SCHED_OTHER && policy >= 0) {
        snprintf(outcome, sizeof outcome, "not tried (policy %d)", policy);
    } else {
        int scheduled = policy == SCHED_OTHER && sched_setscheduler(deckd, SCHED_OTHER, &parameters) == 0;
        snprintf(outcome, sizeof outcome, scheduled ? "CHANGED" : "refused (%s)", strerror(errno));
    }
    probe_say(plugin, "schedule deckd", outcome);
    long io = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, deckd);
    int prioritised = io >= 0 && syscall(SYS_ioprio_set, 1, deckd, io) == 0;
    snprintf(outcome, sizeof outcome, prioritised ? "CHANGED" : "refused (%s)", strerror(errno));
    probe_say(plugin, "io priority deckd", outcome);
    /* The calling thread's own, named as 0, stays the plugin's to set. */
    const char *own = "allowed";
    int own_nice = getpriority(PRIO_PROCESS, 0);
    struct rlimit own_limit;
    long own_io = syscall(SYS_ioprio_get, 1, 0);
    if (setpriority(PRIO_PROCESS, 0, own_nice) != 0) own = "REFUSED setpriority";
    else if (getrlimit(RLIMIT_NOFILE, &own_limit) != 0 || setrlimit(RLIMIT_NOFILE, &own_limit) != 0) own = "REFUSED setrlimit";
    else if (sched_getaffinity(0, sizeof cpus, &cpus) != 0 || sched_setaffinity(0, sizeof cpus, &cpus) != 0) own = "REFUSED sched_setaffinity";
    else if (sched_setscheduler(0, SCHED_OTHER, &parameters) != 0) own = "REFUSED sched_setscheduler";
    else if (own_io < 0 || syscall(SYS_ioprio_set, 1, 0, own_io) != 0) own = "REFUSED ioprio_set";
    probe_say(plugin, "own scheduling", own);
    int everyone = setpriority(PRIO_USER, 2147483600U, 0) == 0;
    snprintf(outcome, sizeof outcome, everyone ? "CHANGED" : errno == EPERM ? "refused (%s)" : "LET THROUGH (%s)", strerror(errno));
    probe_say(plugin, "renice uid", outcome);
}

/* Each attempt of a hostile plugin; what it logs is what the sandbox let it do. */
static void sandbox_probe(const deck_plugin_t *plugin) {
    char outcome[200];
    try_control(outcome, sizeof outcome);
    probe_say(plugin, "control", outcome);
    /* Read deckd's environment and its secrets. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    int environ_fd = open(path, O_RDONLY);
    char secrets[4096];
    ssize_t read_count = environ_fd >= 0 ? read(environ_fd, secrets, sizeof secrets) : -1;
    if (read_count > 0) snprintf(outcome, sizeof outcome, "READ %d bytes", (int)read_count);
    else snprintf(outcome, sizeof outcome, "refused (%s)", strerror(errno));
    if (environ_fd >= 0) close(environ_fd);
    probe_say(plugin, "environ", outcome);
    probe_say(plugin, "env", getenv("DECK_SECRET") || getenv("XDG_RUNTIME_DIR") || getenv("DBUS_SESSION_BUS_ADDRESS") ? "LEAKED" : "clean");
    /* Read the TCP token. */
    int token = open(FIXTURE_TOKEN, O_RDONLY);
    if (token >= 0) snprintf(outcome, sizeof outcome, "READABLE");
    else snprintf(outcome, sizeof outcome, "refused (%s)", strerror(errno));
    if (token >= 0) close(token);
    probe_say(plugin, "token", outcome);
    /* Open the token to everyone, and mark another app's file: Landlock does not govern either. */
    int changed = chmod(FIXTURE_TOKEN, 0644) == 0;
    snprintf(outcome, sizeof outcome, changed ? "CHANGED" : "refused (%s)", strerror(errno));
    probe_say(plugin, "chmod token", outcome);
    int set = setxattr(FIXTURE_VICTIM, "user.deck", "1", 1, 0) == 0;
    snprintf(outcome, sizeof outcome, set ? "SET" : "refused (%s)", strerror(errno));
    probe_say(plugin, "xattr victim", outcome);
    /* A Unix socket, which local services (D-Bus, systemd) trust by its uid. */
    int unix_socket = socket(AF_UNIX, SOCK_STREAM, 0);
    snprintf(outcome, sizeof outcome, unix_socket >= 0 ? "made" : "refused (%s)", strerror(errno));
    if (unix_socket >= 0) close(unix_socket);
    probe_say(plugin, "unix socket", outcome);
#ifdef FIXTURE_BUS
    try_mpris(outcome, sizeof outcome);
    probe_say(plugin, "mpris", outcome);
#endif
    /* The uid's kernel keyring (the runtime's, on its uid). */
    int reached = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -4 /* KEY_SPEC_USER_KEYRING */, 1) >= 0;
    snprintf(outcome, sizeof outcome, reached ? "REACHED" : "refused (%s)", strerror(errno));
    probe_say(plugin, "keyring", outcome);
    capabilities(outcome, sizeof outcome);
    probe_say(plugin, "caps", outcome);
    /* A real-time thread of its own, which would outrank the runtime's audio. */
    struct sched_param realtime = { .sched_priority = 1 }, normal = { .sched_priority = 0 };
    int refused_realtime = pthread_setschedparam(pthread_self(), SCHED_FIFO, &realtime);
    snprintf(outcome, sizeof outcome, refused_realtime == 0 ? "REAL-TIME" : "refused (%s)", strerror(refused_realtime));
    if (refused_realtime == 0) pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
    probe_say(plugin, "realtime thread", outcome);
    try_scheduling(plugin);
#ifdef FIXTURE_PROCESSES
    /* Fork without end (up to FIXTURE_PROCESSES children that wait), then end them all. */
    static pid_t forked[FIXTURE_PROCESSES];
    int made = 0, refusal = 0;
    for (; made < FIXTURE_PROCESSES; made++) {
        pid_t child = fork();
        if (child == 0) { for (;;) pause(); }
        if (child < 0) { refusal = errno; break; }
        forked[made] = child;
    }
#ifdef FIXTURE_PROCESSES_HOLD_MS
    usleep(FIXTURE_PROCESSES_HOLD_MS * 1000);
#endif
    for (int i = 0; i < made; i++) { kill(forked[i], SIGKILL); waitpid(forked[i], NULL, 0); }
    snprintf(outcome, sizeof outcome, "made %d of %d (%s)", made, FIXTURE_PROCESSES, refusal ? strerror(refusal) : "none refused");
    probe_say(plugin, "processes", outcome);
#endif
    if (FIXTURE_TCP_PORT > 0) {
        try_tcp(outcome, sizeof outcome, 0);
        probe_say(plugin, "tcp", outcome);
        /* A UDP socket on loopback, kept open, where the test points an RTP sink of the car's audio. */
        static int receiver = -1;
        struct sockaddr_in bound = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t length = sizeof bound;
        receiver = socket(AF_INET, SOCK_DGRAM, 0);
        if (receiver >= 0 && bind(receiver, (struct sockaddr *)&bound, sizeof bound) == 0 && getsockname(receiver, (struct sockaddr *)&bound, &length) == 0)
            snprintf(outcome, sizeof outcome, "%d", (int)ntohs(bound.sin_port));
        else
            snprintf(outcome, sizeof outcome, "none (%s)", strerror(errno));
        probe_say(plugin, "udp receiver", outcome);
    }
    if (FIXTURE_HTTP_PORT > 0) {
        try_http(outcome, sizeof outcome, 0);
        probe_say(plugin, "http", outcome);
    }
    /* The same, from an interface's address of this machine to loopback (the peer is then not loopback). */
    in_addr_t from = interface_address();
    static const char no_interface[] = "refused (no address of this machine but loopback here)";
    if (FIXTURE_TCP_PORT > 0) {
        if (from) try_tcp(outcome, sizeof outcome, from); else snprintf(outcome, sizeof outcome, "%s", no_interface);
        probe_say(plugin, "tcp from interface", outcome);
    }
    if (FIXTURE_HTTP_PORT > 0) {
        if (from) try_http(outcome, sizeof outcome, from); else snprintf(outcome, sizeof outcome, "%s", no_interface);
        probe_say(plugin, "http from interface", outcome);
    }
    /* Signal deckd. */
    if (kill(getppid(), 0) == 0) snprintf(outcome, sizeof outcome, "ALLOWED");
    else snprintf(outcome, sizeof outcome, "refused (%s)", strerror(errno));
    probe_say(plugin, "signal", outcome);
    /* Read the integrator's media folder (granted with the "media" permission). */
    int media = open(FIXTURE_MEDIA, O_RDONLY);
    if (media >= 0) snprintf(outcome, sizeof outcome, "readable");
    else snprintf(outcome, sizeof outcome, "refused (%s)", strerror(errno));
    if (media >= 0) close(media);
    probe_say(plugin, "media", outcome);
    /* Write into another app's bundle. */
    int victim = open(FIXTURE_VICTIM, O_WRONLY | O_APPEND);
    if (victim >= 0) snprintf(outcome, sizeof outcome, "WRITABLE");
    else snprintf(outcome, sizeof outcome, "refused (%s)", strerror(errno));
    if (victim >= 0) close(victim);
    probe_say(plugin, "victim", outcome);
    /* Write into its own bundle (read-only), and into its data folder (its own). */
    int own = open(FIXTURE_OWN_MANIFEST, O_WRONLY | O_APPEND);
    if (own >= 0) snprintf(outcome, sizeof outcome, "WRITABLE");
    else snprintf(outcome, sizeof outcome, "refused (%s)", strerror(errno));
    if (own >= 0) close(own);
    probe_say(plugin, "own bundle", outcome);
    fixture_t *f = plugin->plugin_data;
    const char *data = f->host->abi.minor >= 3 && f->host->data_path ? f->host->data_path(f->host) : NULL;
    char pidfile[512] = "";
    if (data) {
        snprintf(pidfile, sizeof pidfile, "%s/pid", data);
        int probe = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        snprintf(outcome, sizeof outcome, probe >= 0 ? "writable" : "REFUSED (%s)", strerror(errno));
        if (probe >= 0) close(probe);
    } else {
        snprintf(outcome, sizeof outcome, "NONE");
    }
    probe_say(plugin, "data", outcome);
    /* What the integrator's settings say (ABI 1.4), media folders included when granted. */
    probe_say(plugin, "settings", f->host->abi.minor >= 4 && f->host->settings ? f->host->settings(f->host) : "NONE");
    /* Forge deckd's output. */
    static const char forged[] = "2026-01-01T00:00:00.000Z error deckd: FORGED\n";
    if (write(1, forged, sizeof forged - 1) < 0 || write(2, forged, sizeof forged - 1) < 0) {}
    /* Outlive the app: a grandchild in a session of its own. */
    char orphan[512] = "";
    if (data) snprintf(orphan, sizeof orphan, "%s/orphan", data);
    pid_t child = fork();
    if (child == 0) {
        setsid();
        pid_t parent = getpid();
        if (fork() == 0) {
            if (data) orphan_attempts(parent, orphan);
            int written = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            char text[32];
            int length = snprintf(text, sizeof text, "%d", (int)getpid());
            if (written >= 0) { if (write(written, text, (size_t)length) < 0) {} close(written); }
            for (;;) pause();
        }
        _exit(0);
    }
    if (child > 0) waitpid(child, NULL, 0);
    /* A helper left to end on its own, as `sh -c 'helper &'` leaves one: adopted by the host, in
       its process group, nobody waits for it. Its pid goes to "ended" before it ends. */
    pid_t starter = fork();
    if (starter == 0) {
        if (fork() == 0) {
            char ended[512];
            snprintf(ended, sizeof ended, "%s/ended", data ? data : "/nonexistent");
            usleep(100000);  /* adopted by then */
            int written = open(ended, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            char text[32];
            int length = snprintf(text, sizeof text, "%d", (int)getpid());
            if (written >= 0) { if (write(written, text, (size_t)length) < 0) {} close(written); }
            _exit(0);
        }
        _exit(0);
    }
    if (starter > 0) waitpid(starter, NULL, 0);
    probe_say(plugin, "done", "all tried");
}

/* The same file and signal attempts from the render thread (the host's second thread, started
   before it restricted itself), logged once, at the first render ("sandbox: render …"). */
static void render_probe(const deck_plugin_t *plugin) {
    char outcome[200], path[64];
    int token = open(FIXTURE_TOKEN, O_RDONLY);
    snprintf(outcome, sizeof outcome, token >= 0 ? "READABLE" : "refused (%s)", strerror(errno));
    if (token >= 0) close(token);
    probe_say(plugin, "render token", outcome);
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    int environ_fd = open(path, O_RDONLY);
    snprintf(outcome, sizeof outcome, environ_fd >= 0 ? "READABLE" : "refused (%s)", strerror(errno));
    if (environ_fd >= 0) close(environ_fd);
    probe_say(plugin, "render environ", outcome);
    int victim = open(FIXTURE_VICTIM, O_WRONLY | O_APPEND);
    snprintf(outcome, sizeof outcome, victim >= 0 ? "WRITABLE" : "refused (%s)", strerror(errno));
    if (victim >= 0) close(victim);
    probe_say(plugin, "render victim", outcome);
    int signalled = kill(getppid(), 0) == 0;
    snprintf(outcome, sizeof outcome, signalled ? "ALLOWED" : "refused (%s)", strerror(errno));
    probe_say(plugin, "render signal", outcome);
    int cleared = prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) == 0;
    snprintf(outcome, sizeof outcome, cleared ? "CLEARED" : "refused (%s)", strerror(errno));
    probe_say(plugin, "render subreaper", outcome);
#if defined(__x86_64__)
    /* The same through the x32 and the 32-bit ABIs ("absent" where the kernel has not got that ABI). */
    long x32 = syscall(0x40000000 | SYS_prctl, PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
    snprintf(outcome, sizeof outcome, x32 == 0 ? "CLEARED" : errno == ENOSYS ? "absent" : "refused (%s)", strerror(errno));
    probe_say(plugin, "render subreaper x32", outcome);
    long compat = 172 /* prctl */;
    __asm__ volatile("int $0x80" : "+a"(compat) : "b"(PR_SET_CHILD_SUBREAPER), "c"(0), "d"(0), "S"(0), "D"(0) : "r8", "r9", "r10", "r11", "memory");
    snprintf(outcome, sizeof outcome, compat == 0 ? "CLEARED" : compat == -ENOSYS ? "absent" : "refused (%s)", strerror((int)-compat));
    probe_say(plugin, "render subreaper i386", outcome);
#endif
    capabilities(outcome, sizeof outcome);
    probe_say(plugin, "render caps", outcome);
    probe_say(plugin, "render done", "all tried");
}

static void *sandbox_thread(void *plugin) {
    sandbox_probe(plugin);
    return NULL;
}
#endif

static deck_status_t fixture_activate(const deck_plugin_t *plugin) {
    fixture_t *f = plugin->plugin_data;
    say(plugin, "lifecycle: activate");
#ifdef FIXTURE_STALE_LOCK
    /* A lock file in its data folder, made at activate and never removed: the next run refuses. */
    char lock[1024];
    snprintf(lock, sizeof lock, "%s/lock", f->host->data_path(f->host) ? f->host->data_path(f->host) : "/nonexistent");
    if (access(lock, F_OK) == 0) {
        f->host->log(f->host, DECK_LOG_ERROR, "a lock from an earlier run is in the way");
        return DECK_E_STATE;
    }
    FILE *made = fopen(lock, "w");
    if (made) fclose(made);
#endif
#ifdef FIXTURE_HANG_ACTIVATE
    for (;;) {
        struct timespec forever = { 3600, 0 };
        nanosleep(&forever, NULL);
    }
#endif
#ifdef FIXTURE_HOSTILE_LOG
    say(plugin, "innocent\n2026-01-01T00:00:00.000Z error deckd: forged\r\x1b[2Jcleared");
    static char longLine[5001];
    memset(longLine, 'x', 5000);
    say(plugin, longLine);
    for (int i = 0; i < 1000; i++) say(plugin, "flood");
    pthread_t paced;
    if (pthread_create(&paced, NULL, paced_log_thread, (void *)plugin) == 0) pthread_detach(paced);
#endif
    f->thread_started = pthread_create(&f->thread, NULL, request_thread, f) == 0;
#ifdef FIXTURE_HELPER
    if (fork() == 0) {
        setsid();
        for (;;) pause();
    }
#endif
#ifdef FIXTURE_SANDBOX_PROBE
    pthread_t prober;  /* off the loop thread: deckd must be free to answer (or refuse) the socket */
    if (pthread_create(&prober, NULL, sandbox_thread, (void *)plugin) == 0) pthread_detach(prober);
#endif
    return DECK_OK;
}

static void *produce(void *context) {
    producer_t *p = context;
    struct timespec due;
    clock_gettime(CLOCK_MONOTONIC, &due);
    while (!atomic_load(&p->stop)) {
        unsigned long written = atomic_load(&p->written);
        if (written - atomic_load(&p->read) + 960 <= PRODUCED_FRAMES) {
            for (unsigned long i = written; i < written + 960; i++) {
                float sample = 0.25f * (float)sin(p->phase);
                p->phase = fmod(p->phase + 2 * M_PI * 440 / DECK_AUDIO_SAMPLE_RATE, 2 * M_PI);
                p->ring[2 * (i % PRODUCED_FRAMES)] = sample;
                p->ring[2 * (i % PRODUCED_FRAMES) + 1] = sample;
            }
            atomic_store(&p->written, written + 960);
        }
        due.tv_nsec += 20000000;
        if (due.tv_nsec >= 1000000000) { due.tv_sec++; due.tv_nsec -= 1000000000; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
    }
    return NULL;
}

static void stop_producing(fixture_t *f) {
    if (!f->producer.started) return;
    atomic_store(&f->producer.stop, 1);
    pthread_join(f->producer.thread, NULL);
    f->producer.started = 0;
}

static void fixture_deactivate(const deck_plugin_t *plugin) {
    fixture_t *f = plugin->plugin_data;
    stop_producing(f);
    if (f->thread_started) pthread_join(f->thread, NULL);
    f->thread_started = 0;
    say(plugin, "lifecycle: deactivate");
}

#ifdef FIXTURE_LINGER
static void *linger(void *unused) {  /* runs library code after destroy: only a host process survives it */
    (void)unused;
    for (volatile unsigned n = 0;; n++) {
        struct timespec tick = { 0, 1000000 };
        nanosleep(&tick, NULL);
    }
    return NULL;
}
#endif

static void fixture_destroy(const deck_plugin_t *plugin) {
    say(plugin, "lifecycle: destroy");
    free(plugin->plugin_data);
#ifdef FIXTURE_LINGER
    pthread_t thread;
    pthread_create(&thread, NULL, linger, NULL);
#endif
}

static const deck_host_audio_t *host_audio(fixture_t *f) {
    return f->host->get_extension(f->host, DECK_EXT_AUDIO);
}

/* Publishes now playing and a queue for `item`; logs the status the host answered. */
static void publish(fixture_t *f, const char *item) {
    const deck_host_now_playing_t *np = f->host->get_extension(f->host, DECK_EXT_NOW_PLAYING);
    const char *artists[] = { "Fixture" };
    static const uint8_t png[] = { 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0 };  /* a PNG signature */
    deck_now_playing_info_t info = {
        .title = item, .artists = artists, .artist_count = 1, .artwork = png, .artwork_size = sizeof png,
        .duration = FIXTURE_DURATION, .elapsed = FIXTURE_ELAPSED, .rate = 1, .playback_state = DECK_PLAYBACK_PLAYING,
        .chapter_number = -1,
    };
    deck_status_t status = np->set_info(f->host, &info);
    if (status == DECK_OK) {
        deck_queue_item_t items[] = { { .id = item, .title = item, .duration = 60 }, { .id = "sine-1000", .duration = -1 } };
        deck_command_set_t commands = { .enabled = FIXTURE_COMMANDS };
        status = np->set_queue(f->host, items, 2, 0);
        if (status == DECK_OK) status = np->set_commands(f->host, &commands);
        f->published = 1;
    }
    char line[400];
    snprintf(line, sizeof line, "now playing: %d %s", (int)status, f->host->last_error(f->host));
    f->host->log(f->host, DECK_LOG_INFO, line);
}

#ifdef FIXTURE_WRONG_THREAD
static void *publish_elsewhere(void *data) {
    publish(data, "elsewhere");
    return NULL;
}
#endif

static int32_t fixture_command(const deck_plugin_t *plugin, const deck_remote_command_t *command, uint64_t token) {
    fixture_t *f = plugin->plugin_data;
    char line[128];
    snprintf(line, sizeof line, "command: %d value=%g mode=%d", (int)command->command, command->value, (int)command->mode);
    say(plugin, line);
#ifdef FIXTURE_COMPLETE_INSIDE
    const deck_host_now_playing_t *np = f->host->get_extension(f->host, DECK_EXT_NOW_PLAYING);
    snprintf(line, sizeof line, "complete inside: %d", (int)np->complete_command(f->host, token, DECK_COMMAND_SUCCESS));
    say(plugin, line);
    return DECK_COMMAND_PENDING;
#endif
    if (FIXTURE_COMMAND_RESULT == DECK_COMMAND_PENDING) f->pending_token = token;
    return FIXTURE_COMMAND_RESULT;
}

static const deck_plugin_now_playing_t fixture_now_playing = { .command = fixture_command };

static void *flood(void *unused) {  /* the host protocol's heartbeat event: length 2, kind 5, tag 2 */
    (void)unused;
    static const unsigned char heartbeat[] = { 2, 0, 0, 0, 5, 2 };
    for (;;) {  /* the socket is non-blocking: wait a little when it is full */
        if (write(3, heartbeat, sizeof heartbeat) < 0) {
            if (errno != EAGAIN) return NULL;
            usleep(100);
        }
    }
}

static deck_status_t fixture_audio_start(const deck_plugin_t *plugin, const char *item_id) {
    fixture_t *f = plugin->plugin_data;
    char item[128], context[64] = "music";
    int type = DECK_FOCUS_GAIN;
    snprintf(item, sizeof item, "%s", item_id ? item_id : "");
    char *at = strchr(item, '@');
    if (at) {
        *at = 0;
        char *slash = strchr(at + 1, '/');
        if (slash) { *slash = 0; type = atoi(slash + 1); }
        snprintf(context, sizeof context, "%s", at + 1);
    }
    f->frequency = 440;
    if (strncmp(item, "sine-", 5) == 0) { f->mode = AUDIO_SINE; f->frequency = atof(item + 5); }
    else if (strcmp(item, "underrun") == 0) f->mode = AUDIO_UNDERRUN;
    else if (strcmp(item, "nan") == 0) f->mode = AUDIO_NAN;
    else if (strcmp(item, "loud") == 0) f->mode = AUDIO_LOUD;
    else if (strcmp(item, "silence") == 0) f->mode = AUDIO_SILENCE;
    else if (strcmp(item, "dc") == 0) f->mode = AUDIO_DC;
    else if (strcmp(item, "denormal") == 0) f->mode = AUDIO_DENORMAL;
    else if (strcmp(item, "hang") == 0) f->mode = AUDIO_HANG;
    else if (strcmp(item, "spin") == 0) f->mode = AUDIO_SPIN;
    else if (strcmp(item, "stall") == 0) f->mode = AUDIO_STALL;
    else if (strcmp(item, "slow") == 0) f->mode = AUDIO_SLOW;
    else if (strcmp(item, "produced") == 0 || strcmp(item, "produced-waits") == 0) {
        f->mode = AUDIO_PRODUCED;
        f->waits_in_freewheel = strcmp(item, "produced-waits") == 0;
        const deck_host_audio_t *audio = host_audio(f);
        f->freewheeling = f->host->abi.minor >= 5 && audio->is_freewheeling && audio->is_freewheeling(f->host);
        if (!f->producer.started) {
            atomic_store(&f->producer.stop, 0);
            f->producer.started = pthread_create(&f->producer.thread, NULL, produce, &f->producer) == 0;
        }
    }
    else if (strcmp(item, "segv") == 0) f->mode = AUDIO_SEGV;
    else if (strcmp(item, "exit") == 0) f->mode = AUDIO_EXIT;
    else if (strcmp(item, "flood") == 0) {
        pthread_t thread;
        pthread_create(&thread, NULL, flood, NULL);
        pthread_detach(thread);
        f->mode = AUDIO_SINE;
    }
    else if (strcmp(item, "garbage") == 0) {
        static const char garbage[] = "\xff\xff\xff\x7fnot the protocol";
        if (write(3, garbage, sizeof garbage) < 0) f->host->log(f->host, DECK_LOG_WARNING, "garbage: descriptor 3 is not writable");
        f->mode = AUDIO_SINE;
    }
    else if (strcmp(item, "probe") == 0) f->mode = AUDIO_SINE;
    else if (strcmp(item, "block") == 0) {
        for (;;) {  /* a start that never returns: the runtime's call timeout ends it */
            struct timespec forever = { 3600, 0 };
            nanosleep(&forever, NULL);
        }
    }
    else { f->host->log(f->host, DECK_LOG_ERROR, "unknown item"); return DECK_E_INVALID; }
    const deck_host_session_t *session = f->host->get_extension(f->host, DECK_EXT_SESSION);
    if (strcmp(item, "probe") == 0) {
        /* Refused calls, then a good one: what does last_error say after each? */
        char line[400];
        int32_t ignored = 0;
        deck_focus_request_t warp = { "warp", DECK_FOCUS_GAIN, 0, { NULL, NULL } };
        deck_status_t refused = session->request_focus(f->host, &warp, &ignored);
        snprintf(line, sizeof line, "probe context: %d %s", (int)refused, f->host->last_error(f->host));
        say(plugin, line);
        deck_focus_request_t odd = { "music", 9, 0, { NULL, NULL } };
        refused = session->request_focus(f->host, &odd, &ignored);
        snprintf(line, sizeof line, "probe type: %d %s", (int)refused, f->host->last_error(f->host));
        say(plugin, line);
        /* Whether the output freewheels (ABI 1.5). */
        const deck_host_audio_t *audio = host_audio(f);
        bool known = f->host->abi.minor >= 5 && audio->is_freewheeling;
        snprintf(line, sizeof line, "probe freewheeling: %s", !known ? "NONE" : audio->is_freewheeling(f->host) ? "yes" : "no");
        say(plugin, line);
    }
    deck_focus_request_t request = { context, type, 0, { NULL, NULL } };
    int32_t result = DECK_FOCUS_REJECTED;
    deck_status_t status = session->request_focus(f->host, &request, &result);
    if (status != DECK_OK || result != DECK_FOCUS_GRANTED) {
        f->host->log(f->host, DECK_LOG_ERROR, f->host->last_error(f->host));
        return status != DECK_OK ? status : DECK_E_STATE;
    }
    if (strcmp(item, "probe") == 0) {
        char line[300];
        snprintf(line, sizeof line, "probe granted: [%s]", f->host->last_error(f->host));
        say(plugin, line);
    }
    status = host_audio(f)->open_stream(f->host);
    if (status != DECK_OK) {
        f->host->log(f->host, DECK_LOG_ERROR, f->host->last_error(f->host));
        return status;
    }
#ifndef FIXTURE_NO_NOW_PLAYING
    publish(f, item);
#endif
#ifdef FIXTURE_WRONG_THREAD
    pthread_t thread;  /* publishes from a thread of its own: set_info is a [loop-thread] call */
    pthread_create(&thread, NULL, publish_elsewhere, f);
    pthread_detach(thread);
#endif
    return DECK_OK;
}

static void fixture_audio_stop(const deck_plugin_t *plugin) {
    fixture_t *f = plugin->plugin_data;
    say(plugin, "lifecycle: stop");
    host_audio(f)->close_stream(f->host);
    stop_producing(f);
    const deck_host_session_t *session = f->host->get_extension(f->host, DECK_EXT_SESSION);
    session->abandon_focus(f->host);
}

static uint32_t fixture_audio_render(const deck_plugin_t *plugin, uint32_t frames, float *out) {
    fixture_t *f = plugin->plugin_data;
    if (f->mode == AUDIO_HANG && f->frames_rendered >= 10) {
        for (;;) {  /* a render that never returns: the audio watchdog must carry on without it */
            struct timespec forever = { 3600, 0 };
            nanosleep(&forever, NULL);
        }
    }
    if (f->mode == AUDIO_STALL && f->frames_rendered == 10) {
        struct timespec stall = { 0, 200000000 };
        nanosleep(&stall, NULL);
    }
    if (f->mode == AUDIO_SLOW) {  /* waits 30 ms a frame for audio, as a decoder's reader may in freewheel */
        struct timespec wait = { 0, 30000000 };
        nanosleep(&wait, NULL);
    }
    if (f->mode == AUDIO_PRODUCED) {  /* what the producer made so far; silence for the rest */
        producer_t *p = &f->producer;
        for (int waited = 0; f->waits_in_freewheel && f->freewheeling && waited < 40
             && atomic_load(&p->written) - atomic_load(&p->read) < frames; waited++) {
            struct timespec millisecond = { 0, 1000000 };
            nanosleep(&millisecond, NULL);
        }
        unsigned long read = atomic_load(&p->read), available = atomic_load(&p->written) - read;
        uint32_t count = available < frames ? (uint32_t)available : frames;
        for (uint32_t i = 0; i < count; i++) {
            out[2 * i] = p->ring[2 * ((read + i) % PRODUCED_FRAMES)];
            out[2 * i + 1] = p->ring[2 * ((read + i) % PRODUCED_FRAMES) + 1];
        }
        memset(out + 2 * count, 0, (frames - count) * 2 * sizeof(float));
        atomic_store(&p->read, read + count);
        f->frames_rendered++;
        return frames;
    }
    if (f->mode == AUDIO_SPIN && f->frames_rendered >= 10) for (volatile unsigned long n = 0;; n++) {}
    if (f->mode == AUDIO_SEGV && f->frames_rendered >= 10) *(volatile int *)8 = 1;
    if (f->mode == AUDIO_EXIT && f->frames_rendered >= 10) exit(0);
#ifdef FIXTURE_SANDBOX_PROBE
    if (f->frames_rendered == 0) render_probe(plugin);
#endif
    uint32_t produced = f->mode == AUDIO_UNDERRUN ? frames / 2 : frames;
    for (uint32_t i = 0; i < produced; i++) {
        float sample = f->mode == AUDIO_DC ? 0.5f
                     : f->mode == AUDIO_LOUD ? (i % 96 < 48 ? 4.0f : -4.0f)
                     : f->mode == AUDIO_SILENCE ? 0.0f : 0.25f * (float)sin(f->phase);
        f->phase = fmod(f->phase + 2 * M_PI * f->frequency / DECK_AUDIO_SAMPLE_RATE, 2 * M_PI);
        out[2 * i] = sample;
        out[2 * i + 1] = sample;
    }
    if (f->mode == AUDIO_NAN && f->frames_rendered % 2 == 1) out[0] = NAN;
    if (f->mode == AUDIO_DENORMAL) out[1] = 1e-40f;  /* a decaying tail never flushed to zero */
    f->frames_rendered++;
    return produced;
}

static void fixture_focus_changed(const deck_plugin_t *plugin, int32_t change, bool should_resume) {
    char line[64];
    snprintf(line, sizeof line, "focus: %d resume=%d", (int)change, should_resume ? 1 : 0);
    say(plugin, line);
#if defined(FIXTURE_STOPS_ON_TRANSIENT) || defined(FIXTURE_STOPS_ON_DUCK)
#ifdef FIXTURE_STOPS_ON_TRANSIENT
    const int32_t stops_on = DECK_FOCUS_CHANGE_LOSS_TRANSIENT;
#else
    const int32_t stops_on = DECK_FOCUS_CHANGE_DUCK;
#endif
    if (change == stops_on) fixture_audio_stop(plugin);  /* wrong: the runtime pauses or ducks it itself */
#endif
}

static void fixture_session_changed(const deck_plugin_t *plugin, bool active) {
    say(plugin, active ? "session: 1" : "session: 0");
}

static const deck_plugin_session_t fixture_session = {
    .focus_changed = fixture_focus_changed,
    .session_changed = fixture_session_changed,
};

static const deck_plugin_audio_t fixture_audio = {
    .start = fixture_audio_start,
    .stop = fixture_audio_stop,
    .render = fixture_audio_render,
};

static const int fixture_extension_marker = 42;

static const void *fixture_get_extension(const deck_plugin_t *plugin, const char *id) {
    (void)plugin;
    if (strcmp(id, DECK_EXT_AUDIO) == 0) return &fixture_audio;
    if (strcmp(id, DECK_EXT_SESSION) == 0) return &fixture_session;
    if (strcmp(id, DECK_EXT_NOW_PLAYING) == 0) return &fixture_now_playing;
    return strcmp(id, "org.deck.test.marker") == 0 ? &fixture_extension_marker : NULL;
}

static void fixture_on_callback(const deck_plugin_t *plugin) {
    fixture_t *f = plugin->plugin_data;
#ifdef FIXTURE_SLOW_CALLBACK
#ifndef FIXTURE_SLOW_CALLBACK_MS
#define FIXTURE_SLOW_CALLBACK_MS 150
#endif
    struct timespec slow = { FIXTURE_SLOW_CALLBACK_MS / 1000, (FIXTURE_SLOW_CALLBACK_MS % 1000) * 1000000L };  /* on the loop thread */
    nanosleep(&slow, NULL);
#endif
#ifdef FIXTURE_CALLBACK_FAULT
    static int calls;
    if (++calls == FIXTURE_CALLBACK_FAULT) *(volatile int *)8 = 1;
#endif
#ifdef FIXTURE_CALLBACK_BLOCKS
    for (;;) pause();
#endif
#ifdef FIXTURE_GREEDY_CALLBACK
    struct timespec greedy = { FIXTURE_GREEDY_CALLBACK / 1000, (FIXTURE_GREEDY_CALLBACK % 1000) * 1000000L };
    nanosleep(&greedy, NULL);
    f->host->request_callback(f->host);
#endif
    const deck_host_thread_check_t *check = f->host->get_extension(f->host, DECK_EXT_THREAD_CHECK);
    say(plugin, check && check->is_loop_thread(f->host) ? "callback: loop thread" : "callback: other thread");
    const deck_host_now_playing_t *np = f->host->get_extension(f->host, DECK_EXT_NOW_PLAYING);
    char line[400];
    if (f->pending_token) {
        deck_status_t status = np->complete_command(f->host, f->pending_token, DECK_COMMAND_SUCCESS);
        snprintf(line, sizeof line, "complete: %d %s", (int)status, f->host->last_error(f->host));
        say(plugin, line);
        f->pending_token = 0;
    }
    if (f->published) {
        deck_status_t status = np->set_position(f->host, 5, 1, DECK_PLAYBACK_PLAYING);
        snprintf(line, sizeof line, "set_position: %d %s", (int)status, f->host->last_error(f->host));
        say(plugin, line);
    }
}

#ifdef FIXTURE_LEAK
static void *block_on(void *descriptor) {
    char byte;
    while (read((int)(intptr_t)descriptor, &byte, 1) != 0) {}
    return NULL;
}
#endif

static const deck_plugin_t *fixture_create(const deck_host_t *host, const char *plugin_id) {
    (void)plugin_id;
#ifdef FIXTURE_ONCE
    /* State kept across instances in a library that stays loaded (as Swift libraries do): the
       second create fails. */
    static int created;
    Dl_info self;
    if (dladdr((void *)fixture_create, &self) && self.dli_fname) dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (created++) return NULL;
#endif
#ifdef FIXTURE_LEAK
    /* A pipe never closed, a thread blocked reading it for ever and 8 MiB never freed: all outlive destroy. */
    memset(malloc(8 << 20), 1, 8 << 20);
    int ends[2];
    if (pipe(ends) == 0) {
        pthread_t reader;
        pthread_create(&reader, NULL, block_on, (void *)(intptr_t)ends[0]);
        pthread_detach(reader);
    }
#endif
#ifdef FIXTURE_CREATE_FAILS
    (void)host;
    return NULL;
#else
    fixture_t *f = calloc(1, sizeof *f);
    f->host = host;
    f->plugin.desc = &fixture_descriptor;
    f->plugin.plugin_data = f;
    f->plugin.init = fixture_init;
    f->plugin.activate = fixture_activate;
#ifndef FIXTURE_NO_DEACTIVATE
    f->plugin.deactivate = fixture_deactivate;
#endif
    f->plugin.destroy = fixture_destroy;
    f->plugin.get_extension = fixture_get_extension;
    f->plugin.on_callback = fixture_on_callback;
    return &f->plugin;
#endif
}

static bool fixture_entry_init(const char *bundle_path) {
    (void)bundle_path;
#ifdef FIXTURE_ENTRY_INIT_FAILS
    return false;
#else
    return true;
#endif
}

static void fixture_entry_deinit(void) {}

static const deck_plugin_entry_t fixture_entry = {
    .abi = { FIXTURE_ENTRY_MAJOR, FIXTURE_ENTRY_MINOR, 0 },
    .init = fixture_entry_init,
    .deinit = fixture_entry_deinit,
    .create = fixture_create,
};

#ifndef FIXTURE_NO_ENTRY
const deck_plugin_entry_t *deck_plugin_entry(void) { return &fixture_entry; }
#else
const deck_plugin_entry_t *not_the_entry(void) { return &fixture_entry; }
#endif
