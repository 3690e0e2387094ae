/*
 * deck/runtime.h — embedding the Deck runtime in a head unit's own process (libdeck.so).
 *
 * An HMI written in C or C++ creates a runtime from the same JSON config deckd reads, runs it
 * beside its own event loop or inside it, talks to it with the same JSON-RPC methods deckd serves
 * on its socket (same names, same payloads, same notifications with their sequence numbers), and
 * takes the encoded Opus (or the mixed PCM) through callbacks. Build with
 * `cc app.c $(pkg-config --cflags --libs deck)`.
 *
 * Two ways to run:
 *  1. Beside your loop: deck_runtime_start() runs the runtime on a thread of its own. Plugins,
 *     and every callback below, run on that thread ("the runtime's thread").
 *  2. Inside your loop: never call start. Either set a wakeup with deck_runtime_set_wakeup()
 *     (called from any thread when the runtime has work; it must only wake your loop) and call
 *     deck_runtime_process() from your loop when woken; or add deck_runtime_backend_fd() to your
 *     poll/epoll set, wait at most deck_runtime_backend_timeout() ms, and call
 *     deck_runtime_process() when it is readable or the time is up. Plugins and callbacks run
 *     inside deck_runtime_process(), on the thread that calls it; call it from one thread.
 *
 * Every function takes any thread unless its comment says otherwise, never crashes on a NULL or
 * destroyed handle or on malformed JSON (it returns an error), never prints (log lines go to
 * deck_runtime_set_log_callback, or nowhere), never exits, and
 * leaves no process-wide state: no signal handlers, no changed signal dispositions, no atexit.
 * Loading libdeck, linked or with dlopen, changes no signal disposition either (the Swift
 * runtime's crash reporter, which it would install, is taken out again unless the program is
 * itself written in Swift). Handles are never reused: a destroyed one stays an error
 * (DECK_RUNTIME_E_STATE), a pointer that was never a handle is DECK_RUNTIME_E_INVALID.
 * Strings handed in are copied during the call; strings handed out by callbacks live until the
 * callback returns; strings returned to you are freed with deck_runtime_free().
 *
 * Inside a callback (reply, event, packet, PCM, log) you may call deck_runtime_call, the
 * setters, deck_runtime_subscribe and deck_runtime_backend_timeout. deck_runtime_process,
 * deck_runtime_call_sync and deck_runtime_destroy would wait for or tear down the loop that is
 * calling you: from inside a callback they return DECK_RUNTIME_E_STATE and do nothing.
 */
#ifndef DECK_RUNTIME_H
#define DECK_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ─── Symbol visibility ──────────────────────────────────────────────────*/

/* Marks what libdeck exports (everything else in it is hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define DECK_RUNTIME_EXPORT __attribute__((visibility("default")))
#else
#define DECK_RUNTIME_EXPORT
#endif

/* ─── Versions and errors ────────────────────────────────────────────────*/

/* An API version as deck_runtime_api_version() returns it. */
#define DECK_RUNTIME_MAKE_VERSION(major, minor) ((uint32_t)(((major) << 16) | (minor)))

#define DECK_RUNTIME_API_VERSION_MAJOR 1
#define DECK_RUNTIME_API_VERSION_MINOR 4
#define DECK_RUNTIME_API_VERSION \
    DECK_RUNTIME_MAKE_VERSION(DECK_RUNTIME_API_VERSION_MAJOR, DECK_RUNTIME_API_VERSION_MINOR)

/* The API version of the library loaded: DECK_RUNTIME_MAKE_VERSION(major, minor).
 * Compare the major with DECK_RUNTIME_API_VERSION_MAJOR before anything else;
 * a minor at least this header's has everything it declares. [any-thread] */
DECK_RUNTIME_EXPORT uint32_t deck_runtime_api_version(void);

/* The library's release and what it implements, e.g. "Deck 0.1.0 (runtime API
 * 1.1, plugin ABI 1.3)": a constant string, never NULL (API 1.1). [any-thread] */
DECK_RUNTIME_EXPORT const char *deck_runtime_version_string(void);

typedef enum deck_runtime_status {
    DECK_RUNTIME_OK            = 0,
    DECK_RUNTIME_E_INVALID     = -1, /* NULL or unknown handle, malformed argument  */
    DECK_RUNTIME_E_STATE       = -2, /* not now: started twice, destroyed, wrong mode */
    DECK_RUNTIME_E_CONFIG      = -3, /* the config was refused                       */
    DECK_RUNTIME_E_INTERNAL    = -4, /* the system refused (a thread, a loop handle)  */
    DECK_RUNTIME_E_TIMEOUT     = -5, /* no answer in time                             */
    DECK_RUNTIME_E_BUSY        = -6  /* too many calls wait for the loop: try later (API 1.2) */
} deck_runtime_status_t;

/* A constant text for a status, never NULL. */
DECK_RUNTIME_EXPORT const char *deck_runtime_status_string(int status);

/* Frees a string the library returned (an error, a synchronous answer). NULL is fine. */
DECK_RUNTIME_EXPORT void deck_runtime_free(char *text);

/* ─── Life of a handle ───────────────────────────────────────────────────*/

typedef struct deck_runtime deck_runtime_t;

/* Creates a runtime from a JSON config (deckd's config file schema; NULL or "{}"
 * for the defaults: no plugin folders, no sinks; "" is not JSON and is refused).
 * Plugins load when the runtime first runs. On failure returns NULL and, when
 * `error` is not NULL, sets *error to the reason (free it with deck_runtime_free). */
DECK_RUNTIME_EXPORT deck_runtime_t *deck_runtime_create(const char *config_json, char **error);

/* Ends everything: the output ends cleanly (end of stream on every sink and
 * callback), plugins are destroyed, focus requested through this handle is
 * released, the runtime's threads are joined, its descriptors closed and its
 * memory freed. Mode 1: from any thread but the runtime's own (a callback).
 * Mode 2: from the thread that calls deck_runtime_process (plugins' destroy
 * runs there), outside its callbacks. Calls racing with it, and every call
 * with the handle after it, are answered DECK_RUNTIME_E_STATE; calls accepted
 * but not yet run are not run: their replies get a -32004 error response
 * ("the runtime is being destroyed"). */
DECK_RUNTIME_EXPORT int deck_runtime_destroy(deck_runtime_t *rt);

/* How much the runtime logs; each level includes the ones above it (the
 * values of plugin.h's deck_log_level_t). */
typedef enum deck_runtime_log_level {
    DECK_RUNTIME_LOG_ERROR   = 0,
    DECK_RUNTIME_LOG_WARNING = 1,
    DECK_RUNTIME_LOG_INFO    = 2,
    DECK_RUNTIME_LOG_DEBUG   = 3
} deck_runtime_log_level_t;

/* Receives the runtime's log lines (`level` a deck_runtime_log_level_t; config
 * "logLevel", or deck_runtime_set_log_level, filters them), on the thread that
 * logs: usually the runtime's. Without one, log lines go nowhere. */
typedef void (*deck_runtime_log_fn)(void *user, int level, const char *source, const char *message);

DECK_RUNTIME_EXPORT int deck_runtime_set_log_callback(deck_runtime_t *rt, deck_runtime_log_fn log, void *user);

/* Changes what is logged from now on, while the runtime runs (API 1.1):
 * DECK_RUNTIME_E_INVALID for a level outside deck_runtime_log_level_t. [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_set_log_level(deck_runtime_t *rt, int level);

/* ─── Mode 1: on the runtime's own thread ────────────────────────────────*/

/* Starts the runtime's thread: plugins load, the output starts, calls are
 * answered there. DECK_RUNTIME_E_STATE if it runs already or mode 2 began
 * (deck_runtime_process was called). Any handle of the runtime may start it. */
DECK_RUNTIME_EXPORT int deck_runtime_start(deck_runtime_t *rt);

/* ─── Mode 2: inside the integrator's loop ───────────────────────────────*/

/* `wakeup(user)` must only wake your loop; it is called from any thread.
 * It works in either mode and does not choose one: it is called when a message
 * lands in this handle's queue (a notification or a tagged answer no callback
 * took: take it with deck_runtime_wait_message, timeout 0), and, on the handle
 * deck_runtime_create returned, in mode 2 whenever the runtime has work (then
 * call deck_runtime_process; the first such wakeup comes at once). NULL stops
 * the wakeups. In mode 2 set it before the first deck_runtime_process. (API 1.2:
 * before, setting it began mode 2.) [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_set_wakeup(deck_runtime_t *rt, void (*wakeup)(void *user), void *user);

/* Runs what is pending (the first call loads the plugins and starts the
 * output) and returns without blocking. Plugins and callbacks run inside it. */
DECK_RUNTIME_EXPORT int deck_runtime_process(deck_runtime_t *rt);

/* For epoll-style loops, instead of a wakeup: a descriptor that becomes
 * readable when the runtime has work, and the longest to wait before calling
 * deck_runtime_process anyway (milliseconds; -1: no timer pending). In mode 1
 * both are DECK_RUNTIME_E_STATE (the runtime's own thread waits on them). */
DECK_RUNTIME_EXPORT int deck_runtime_backend_fd(deck_runtime_t *rt);
DECK_RUNTIME_EXPORT int deck_runtime_backend_timeout(deck_runtime_t *rt);

/* ─── Calls and events: the JSON-RPC API in process ──────────────────────*/

/* Receives the JSON-RPC response (a result or an error object, as the socket
 * would send it), on the runtime's thread or inside deck_runtime_process. */
typedef void (*deck_runtime_reply_fn)(void *user, const char *response_json);

/* Sends one JSON-RPC request (or batch) to the runtime, from any thread. Its
 * answer goes to `reply` (may be NULL); a notification (no id) gets none.
 * Each call's answer reaches its own reply, whatever its id. The loop runs
 * calls for at most control.turnBudgetMs a turn, so audio and timers are served
 * under a flood; beyond 65536 calls waiting, DECK_RUNTIME_E_BUSY (API 1.2). */
DECK_RUNTIME_EXPORT int deck_runtime_call(deck_runtime_t *rt, const char *request_json, deck_runtime_reply_fn reply, void *user);

/* The same, waiting for the answer (at most `timeout_ms`; 0 or less: 10 s). *response
 * gets the answer, to free with deck_runtime_free; on an error status it gets
 * the reason instead, also to free. The runtime must run: after
 * deck_runtime_start (then from any thread but the runtime's own), or once
 * mode 2 began (then from the thread that calls process, outside its
 * callbacks: it runs the loop while it waits); before either it is
 * DECK_RUNTIME_E_STATE. A notification (no id) is sent and not waited for:
 * DECK_RUNTIME_OK with *response NULL. */
DECK_RUNTIME_EXPORT int deck_runtime_call_sync(deck_runtime_t *rt, const char *request_json, char **response, int timeout_ms);

/* Receives every notification the handle subscribed to (events.subscribe, or
 * deck_runtime_subscribe): {"jsonrpc":"2.0","method":TOPIC,"params":{…,"seq":N,"time":MS}}. */
typedef void (*deck_runtime_event_fn)(void *user, const char *notification_json);

DECK_RUNTIME_EXPORT int deck_runtime_set_event_callback(deck_runtime_t *rt, deck_runtime_event_fn event, void *user);

/* Subscribes the handle to a topic (apps.changed, session.changed, ui.changed,
 * nowPlaying.changed…): events.subscribe without writing JSON. */
DECK_RUNTIME_EXPORT int deck_runtime_subscribe(deck_runtime_t *rt, const char *topic);

/* Ends the handle's subscription to a topic (API 1.1): events.unsubscribe
 * without writing JSON. */
DECK_RUNTIME_EXPORT int deck_runtime_unsubscribe(deck_runtime_t *rt, const char *topic);

/* The pull queue (API 1.1), for programs that would rather ask than be called:
 * while no event callback is set, the notifications the handle subscribed to
 * wait in a queue of up to 1024 (beyond, the oldest is dropped, counted and
 * logged). Takes the oldest into *event (free it with deck_runtime_free),
 * waiting up to `timeout_ms` (0 to 60000; 0: do not wait) for one:
 * DECK_RUNTIME_OK, or DECK_RUNTIME_E_TIMEOUT with *event NULL when none came.
 * A wait on the thread that makes the events (the runtime's own in mode 1,
 * the one inside deck_runtime_process in mode 2, so any callback) would wait
 * for itself: there only timeout_ms 0 is allowed (else DECK_RUNTIME_E_STATE).
 * [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_wait_event(deck_runtime_t *rt, int timeout_ms, char **event);

/* ─── Reply tags (API 1.2) ───────────────────────────────────────────────*/

/* Receives the answer to a tagged call with the call's tag, on the runtime's
 * thread or inside deck_runtime_process. */
typedef void (*deck_runtime_tagged_reply_fn)(void *user, uint64_t reply_tag, const char *response_json);

/* Where this handle's tagged answers go; NULL: into its queue
 * (deck_runtime_wait_message). [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_set_reply_callback(deck_runtime_t *rt, deck_runtime_tagged_reply_fn reply, void *user);

/* Sends one JSON-RPC request (or batch) and tags its answer with `reply_tag`,
 * an opaque number of yours kept apart from the JSON (libmpv's
 * reply_userdata): the answer goes to the reply callback, or into the
 * handle's queue. A notification (no id) gets no answer. [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_call_tagged(deck_runtime_t *rt, const char *request_json, uint64_t reply_tag);

/* What deck_runtime_wait_message takes from the queue. */
typedef enum deck_runtime_message_kind {
    DECK_RUNTIME_MESSAGE_NONE = 0,   /* nothing came */
    DECK_RUNTIME_MESSAGE_EVENT = 1,  /* a notification the handle subscribed to */
    DECK_RUNTIME_MESSAGE_REPLY = 2,  /* the answer to a tagged call */
} deck_runtime_message_kind_t;

typedef struct deck_runtime_message {
    int kind;            /* a deck_runtime_message_kind_t */
    uint64_t reply_tag;  /* the call's tag, for a reply; 0 otherwise */
    char *json;          /* the notification or the response; free with deck_runtime_free */
    uint64_t reserved[4];
} deck_runtime_message_t;

/* Takes the oldest message of the handle's queue (notifications while no
 * event callback is set, tagged answers while no reply callback is set) into
 * *message, waiting up to `timeout_ms` (0 to 60000) as deck_runtime_wait_event
 * does: DECK_RUNTIME_OK, or DECK_RUNTIME_E_TIMEOUT with kind NONE. Tagged
 * answers are never dropped; notifications are, beyond 1024. [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_wait_message(deck_runtime_t *rt, int timeout_ms, deck_runtime_message_t *message);

/* ─── Client handles (API 1.2) ───────────────────────────────────────────*/

/* Another handle on the same runtime (libmpv's mpv_create_client): its own
 * JSON-RPC connection, so its own subscriptions, its own event, reply and
 * wakeup callbacks and queue, and its own integrator focus (session.request
 * defaults its owner name to `name`), so an HMI, a phone service and a
 * navigation engine in one process each hold focus as deckd's socket clients
 * do. Calls, call_sync, the callbacks, subscriptions, the queue and the wakeup
 * are the client's; start, process, the backend, packets, the PCM tap and the
 * log act on the runtime from any of its handles. deck_runtime_destroy on a
 * client ends only it: its focus is released, none of its callbacks runs after
 * it returns. Destroying the handle deck_runtime_create returned ends the
 * runtime; its clients then answer DECK_RUNTIME_E_STATE until destroyed.
 * `name`: 1 to 64 letters, digits, '-', '_' or '.'. NULL on a bad name or a
 * dead runtime. [any-thread] */
DECK_RUNTIME_EXPORT deck_runtime_t *deck_runtime_create_client(deck_runtime_t *rt, const char *name);

/* ─── Audio zones (API 1.3) ──────────────────────────────────────────────*/

/* Binds the handle to an audio zone (zones.bind): its calls that name no
 * "zone" act on that zone's session, volumes, now playing, screen and sinks,
 * as a rear-seat HMI's would; apps it launches play there. NULL: the primary
 * zone again. Calls made after it from the same thread are bound.
 * DECK_RUNTIME_E_INVALID for a zone the runtime's config does not have.
 * [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_set_zone(deck_runtime_t *rt, const char *zone);

/* ─── Audio out ──────────────────────────────────────────────────────────*/

/* One Opus packet of the mixed output (48 kHz stereo), in order, on the
 * runtime's thread or inside deck_runtime_process, never on the audio thread
 * (packets reach it through a ring). `granule` is the Ogg granule position
 * after the packet counted from the start of the run (pre-skip included:
 * `pre_skip` samples at the start of each run are encoder delay); `samples` is
 * its duration; `end_of_stream` marks the last packet of a run. */
typedef void (*deck_runtime_packet_fn)(void *user, const uint8_t *packet, size_t size, int64_t granule,
                                       uint32_t samples, uint32_t pre_skip, bool end_of_stream);

/* Sets (or with NULL clears) the packet callback; it takes packets from the
 * next one encoded, each as soon as it is encoded, which wakes the runtime's
 * thread for every packet. With none set, the runtime's thread wakes only as
 * often as its other sinks need (an HTTP sink: every 100 ms; an Ogg file sink:
 * every 500 ms; none: once a second). [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_set_packet_callback(deck_runtime_t *rt, deck_runtime_packet_fn packet, void *user);

/* Sets (or with NULL clears) the audio-thread packet callback (API 1.4): the
 * same packets, arguments and order as the packet callback's, called on the
 * audio thread itself right after each is encoded, with no ring and no wake-up
 * of the runtime's thread between, so it costs the runtime nothing per packet
 * and adds no latency. It runs inside the audio thread's frame: return quickly,
 * never block or wait for a lock the runtime's thread may hold, and do no I/O
 * that can stall (copy the packet into your own ring, or send it on a
 * non-blocking socket). A callback that does not return within the render
 * timeout (audio.renderTimeoutMs) is logged, and the output waits for it. From
 * it, deck_runtime_call and the setters may be called; deck_runtime_process,
 * deck_runtime_call_sync, deck_runtime_destroy, deck_runtime_backend_timeout and
 * waiting for messages return DECK_RUNTIME_E_STATE (each would wait for the
 * runtime's thread, which may be waiting for the audio thread). When this
 * returns, the callback it replaced is not running and will not be called
 * again (called from inside that callback, it does not wait for it). Both
 * packet callbacks may be set; each gets every packet. [any-thread] */
DECK_RUNTIME_EXPORT int deck_runtime_set_audio_packet_callback(deck_runtime_t *rt, deck_runtime_packet_fn packet, void *user);

/* The mix before encoding: `frames` frames of interleaved stereo float at
 * 48 kHz, in order, on the same thread as packets. Frames the callback's
 * thread falls a second behind on are dropped and counted in runtime.info. */
typedef void (*deck_runtime_pcm_fn)(void *user, const float *samples, uint32_t frames);

DECK_RUNTIME_EXPORT int deck_runtime_set_pcm_tap(deck_runtime_t *rt, deck_runtime_pcm_fn pcm, void *user);

#ifdef __cplusplus
}
#endif

#endif /* DECK_RUNTIME_H */
