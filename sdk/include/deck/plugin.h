/*
 * deck/plugin.h — the Deck plugin ABI, version 1.
 *
 * A Deck plugin is a shared library inside a bundle folder `NAME.deckplugin/`
 * next to a `manifest.json`. The runtime reads and checks the manifest before
 * any plugin code runs, then opens the library and calls the one exported
 * function, deck_plugin_entry().
 *
 * Rules of the ABI:
 *  - Only C types cross the boundary. Strings are NUL-terminated UTF-8 and are
 *    copied by the callee; no pointer into the other side's memory is kept
 *    across calls.
 *  - Structs only ever grow at the end; a plugin reads `abi` to know which
 *    fields a host has, and the host does the same with the plugin.
 *  - Features grow as extensions fetched by string id, both ways:
 *    plugin->get_extension(plugin, id) and host->get_extension(host, id).
 *  - Every host call that can fail returns a deck_status; host->last_error()
 *    gives the human-readable reason.
 *  - Every function carries a thread tag:
 *      [loop-thread]   called only on the runtime's event-loop thread
 *      [audio-thread]  called only on the runtime's audio thread
 *      [any-thread]    may be called from any thread, concurrently
 *
 * Lifecycle of one plugin instance, checked by the host:
 *
 *     entry->init ─▶ entry->create ─▶ plugin->init ─▶ plugin->activate
 *                                          ▲                 │
 *                                          └── deactivate ◀──┘
 *     plugin->destroy (from initialised or created) ─▶ entry->deinit
 *
 * A call made in the wrong state is refused with DECK_E_STATE; it never
 * reaches the plugin.
 */
#ifndef DECK_PLUGIN_H
#define DECK_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ─── Versioning ─────────────────────────────────────────────────────────
 *
 * A runtime accepts a plugin whose major version equals its own and whose
 * minor version is not newer than its own. Anything else is refused at load
 * time with a message naming both versions.
 */

#define DECK_ABI_VERSION_MAJOR 1
#define DECK_ABI_VERSION_MINOR 0
#define DECK_ABI_VERSION_PATCH 0

typedef struct deck_abi_version {
    uint32_t major;
    uint32_t minor;
    uint32_t patch;
} deck_abi_version_t;

#define DECK_ABI_VERSION_INIT \
    { DECK_ABI_VERSION_MAJOR, DECK_ABI_VERSION_MINOR, DECK_ABI_VERSION_PATCH }

/* ─── Status codes ───────────────────────────────────────────────────────
 *
 * Negative values are errors. New codes may be added; treat an unknown
 * negative code like DECK_E_INTERNAL.
 */

typedef int32_t deck_status_t;

enum {
    DECK_OK             = 0,
    DECK_E_INVALID      = -1, /* an argument is malformed or out of range   */
    DECK_E_NOT_ENTITLED = -2, /* the plugin lacks the entitlement for this  */
    DECK_E_LIMIT        = -3, /* a display, size or count limit was hit     */
    DECK_E_STATE        = -4, /* not allowed in the current lifecycle state */
    DECK_E_UNSUPPORTED  = -5, /* the host or plugin does not offer this     */
    DECK_E_INTERNAL     = -6  /* the callee failed for its own reasons      */
};

/* ─── Logging ────────────────────────────────────────────────────────────*/

typedef enum deck_log_level {
    DECK_LOG_ERROR   = 0,
    DECK_LOG_WARNING = 1,
    DECK_LOG_INFO    = 2,
    DECK_LOG_DEBUG   = 3
} deck_log_level_t;

/* ─── Host ───────────────────────────────────────────────────────────────
 *
 * The host gives each plugin instance its own deck_host_t; it stays valid
 * from entry->create until plugin->destroy returns.
 */

typedef struct deck_host deck_host_t;

struct deck_host {
    /* The ABI version the host implements. */
    deck_abi_version_t abi;

    /* Reserved for the host; plugins must not touch it. */
    void *host_data;

    /* Host name and version, e.g. "Deck" and "0.1.0". */
    const char *name;
    const char *version;

    /* Returns the host extension with this id, or NULL when the host does not
     * offer it. The pointer stays valid as long as the host struct does.
     * [any-thread] */
    const void *(*get_extension)(const deck_host_t *host, const char *id);

    /* Writes one line to the runtime's log, attributed to this plugin. Never
     * write to stdout or stderr yourself. `message` is copied.
     * [any-thread] */
    void (*log)(const deck_host_t *host, deck_log_level_t level, const char *message);

    /* Returns a human-readable description of why this plugin's latest
     * [loop-thread] host call failed, or "" when it succeeded (a delayed or
     * rejected focus request succeeds and says why here). Valid until the
     * plugin's next host call. [loop-thread] */
    const char *(*last_error)(const deck_host_t *host);

    /* Asks the host to call plugin->on_callback() soon on the loop thread.
     * Requests made before that call coalesce into one. Returns DECK_E_STATE
     * once the plugin is being destroyed.
     * [any-thread] */
    deck_status_t (*request_callback)(const deck_host_t *host);

    /* Returns true when the plugin's effective entitlements (declared in its
     * manifest and granted by the integrator's policy) include `category`,
     * e.g. "audio". [any-thread] */
    bool (*has_entitlement)(const deck_host_t *host, const char *category);

    /* Room to grow without changing the struct's size; always NULL in 1.0. */
    void *reserved[8];
};

/* ─── Plugin ─────────────────────────────────────────────────────────────*/

/* Static facts about the plugin; must stay valid while the library is open.
 * `id` must equal the manifest's id. */
typedef struct deck_plugin_descriptor {
    deck_abi_version_t abi;
    const char *id;          /* reverse-DNS, e.g. "org.example.radio" */
    const char *name;        /* shown to the driver */
    const char *version;     /* semantic version, e.g. "1.2.0" */
    const char *vendor;      /* may be NULL */
    const char *description; /* may be NULL */
    void *reserved[4];
} deck_plugin_descriptor_t;

typedef struct deck_plugin deck_plugin_t;

struct deck_plugin {
    const deck_plugin_descriptor_t *desc;

    /* Reserved for the plugin; the host never touches it. */
    void *plugin_data;

    /* Prepares the instance; the host's extensions may be queried here.
     * Returning anything but DECK_OK makes the host destroy the instance and
     * report the failure. [loop-thread] */
    deck_status_t (*init)(const deck_plugin_t *plugin);

    /* The plugin is now running: it may use its entitlements until
     * deactivate. [loop-thread] */
    deck_status_t (*activate)(const deck_plugin_t *plugin);

    /* The plugin stops running; it is called for every successful activate
     * before destroy. [loop-thread] */
    void (*deactivate)(const deck_plugin_t *plugin);

    /* Frees the instance. No call reaches the plugin after this one.
     * [loop-thread] */
    void (*destroy)(const deck_plugin_t *plugin);

    /* Returns the plugin extension with this id, or NULL. [loop-thread] */
    const void *(*get_extension)(const deck_plugin_t *plugin, const char *id);

    /* Answers host->request_callback(). [loop-thread] */
    void (*on_callback)(const deck_plugin_t *plugin);

    /* Room to grow without changing the struct's size; set to NULL. */
    void *reserved[8];
};

/* ─── Entry point ────────────────────────────────────────────────────────
 *
 * The library exports one function, deck_plugin_entry(), returning a pointer
 * to a static deck_plugin_entry_t. It is a function, not a data symbol, so
 * that any language able to export a C function can implement a plugin.
 */

typedef struct deck_plugin_entry {
    /* Set to DECK_ABI_VERSION_INIT. */
    deck_abi_version_t abi;

    /* Called once after the library is opened. `bundle_path` is the
     * .deckplugin folder, for finding resources. Return false to refuse
     * loading. [loop-thread] */
    bool (*init)(const char *bundle_path);

    /* Called once before the runtime forgets the library. [loop-thread] */
    void (*deinit)(void);

    /* Creates the instance for `plugin_id` (the manifest's id), bound to
     * `host`; returns NULL on failure. [loop-thread] */
    const deck_plugin_t *(*create)(const deck_host_t *host, const char *plugin_id);

    /* Room to grow without changing the struct's size; set to NULL. */
    void *reserved[4];
} deck_plugin_entry_t;

#define DECK_PLUGIN_ENTRY_SYMBOL "deck_plugin_entry"

typedef const deck_plugin_entry_t *(*deck_plugin_entry_fn)(void);

/* The one symbol every plugin library exports. [loop-thread] */
const deck_plugin_entry_t *deck_plugin_entry(void);

/* ─── Host extension: deck.thread-check ──────────────────────────────────
 *
 * Lets a plugin assert the thread tags above, e.g. in debug builds.
 */

#define DECK_EXT_THREAD_CHECK "deck.thread-check"

typedef struct deck_host_thread_check {
    /* True when called on the runtime's loop thread. [any-thread] */
    bool (*is_loop_thread)(const deck_host_t *host);

    /* True when called on the runtime's audio thread. [any-thread] */
    bool (*is_audio_thread)(const deck_host_t *host);
} deck_host_thread_check_t;

/* ─── Audio: deck.audio ──────────────────────────────────────────────────
 *
 * Audio is pulled, never pushed: while a plugin's stream is open, the audio
 * thread calls its render() once per frame (default 20 ms) for 48 kHz stereo
 * float PCM, interleaved L R L R. A plugin that produces fewer frames than
 * asked underruns: the host pads with silence and counts it. Samples outside
 * [-1, 1] are limited; a NaN or infinity silences that frame and is counted.
 *
 * Playback starts when the host calls the plugin's start() (a remote "play",
 * `deckd --play ID[:ITEM]`); the plugin then requests focus (deck.session),
 * opens its stream with the host's open_stream() once it has audio, and
 * closes it (and abandons focus) when done.
 */

#define DECK_EXT_AUDIO "deck.audio"

#define DECK_AUDIO_SAMPLE_RATE 48000
#define DECK_AUDIO_CHANNELS 2

/* Offered by the plugin (plugin->get_extension(plugin, DECK_EXT_AUDIO)). */
typedef struct deck_plugin_audio {
    /* Starts playback of `item_id` (NULL: the plugin's default item). Return
     * DECK_E_INVALID for an item the plugin does not know. [loop-thread] */
    deck_status_t (*start)(const deck_plugin_t *plugin, const char *item_id);

    /* Stops playback; the plugin closes its stream. [loop-thread] */
    void (*stop)(const deck_plugin_t *plugin);

    /* Writes up to `frames` frames (frames × 2 floats) to `out` and returns
     * how many it wrote. Must not block, lock, allocate or do I/O.
     * [audio-thread] */
    uint32_t (*render)(const deck_plugin_t *plugin, uint32_t frames, float *out);

    void *reserved[8];
} deck_plugin_audio_t;

/* Offered by the host (host->get_extension(host, DECK_EXT_AUDIO)). */
typedef struct deck_host_audio {
    /* Starts pulling the plugin's render() on the audio thread. Needs an
     * active plugin that offers deck.audio (DECK_E_STATE, DECK_E_UNSUPPORTED)
     * and holds audio focus requested through deck.session (DECK_E_STATE);
     * the entitlements gate which focus it may hold. Opening an open stream is
     * DECK_OK. [loop-thread] */
    deck_status_t (*open_stream)(const deck_host_t *host);

    /* Stops pulling render(); when it returns, render() is no longer running
     * and will not be called again until the next open_stream(). Closing a
     * closed stream is DECK_OK. [loop-thread] */
    deck_status_t (*close_stream)(const deck_host_t *host);

    void *reserved[8];
} deck_host_audio_t;

/* ─── Audio session: deck.session ────────────────────────────────────────
 *
 * One car, one output, many apps: before opening a stream a plugin requests
 * audio focus for a context ("music", "navigation", "call", …). The runtime
 * answers by its interaction matrix (Android Automotive's by default):
 * granted, delayed (granted later, when the blockers leave), or rejected.
 * Holders that lose are told through the plugin's deck.session extension;
 * the runtime itself ducks (-14 dB by default) and mutes their streams, so a
 * plugin never scales its own output for focus. The output starts on the
 * first grant and stops when nothing has held focus or played for a while;
 * every plugin is told both.
 *
 * Contexts a plugin may request follow its effective entitlements:
 *   audio: music, announcement · communication: call, callRing,
 *   voiceCommand, notification · maps: navigation · charging, parking,
 *   quick-ordering, fueling, driving-task: notification.
 */

#define DECK_EXT_SESSION "deck.session"

typedef enum deck_focus_type {
    DECK_FOCUS_GAIN                     = 1, /* until abandoned; others lose for good  */
    DECK_FOCUS_GAIN_TRANSIENT           = 2, /* a while; others pause, then resume     */
    DECK_FOCUS_GAIN_TRANSIENT_MAY_DUCK  = 3, /* a while; others may play on, ducked    */
    DECK_FOCUS_GAIN_TRANSIENT_EXCLUSIVE = 4  /* a while, alone                          */
} deck_focus_type_t;

/* Wait for focus (at most one request waits) instead of being rejected. */
#define DECK_FOCUS_FLAG_ACCEPTS_DELAYED (1u << 0)
/* Spoken audio: pause instead of being ducked. */
#define DECK_FOCUS_FLAG_PAUSES_ON_DUCK (1u << 1)

typedef enum deck_focus_result {
    DECK_FOCUS_REJECTED = 0,
    DECK_FOCUS_GRANTED  = 1,
    DECK_FOCUS_DELAYED  = 2
} deck_focus_result_t;

typedef enum deck_focus_change {
    DECK_FOCUS_CHANGE_GAIN           = 1,  /* gained: delayed grant, or resume     */
    DECK_FOCUS_CHANGE_UNDUCK         = 2,  /* back to full level                   */
    DECK_FOCUS_CHANGE_LOSS           = -1, /* lost for good: stop, release          */
    DECK_FOCUS_CHANGE_LOSS_TRANSIENT = -2, /* lost for a while: pause               */
    DECK_FOCUS_CHANGE_DUCK           = -3  /* playing on, ducked by the runtime     */
} deck_focus_change_t;

typedef struct deck_focus_request {
    const char *context; /* "music", "navigation", … */
    int32_t type;        /* deck_focus_type_t */
    uint32_t flags;      /* DECK_FOCUS_FLAG_* */
    void *reserved[2];
} deck_focus_request_t;

/* Offered by the host (host->get_extension(host, DECK_EXT_SESSION)). */
typedef struct deck_host_session {
    /* Requests focus; `*result` receives a deck_focus_result_t. When it is not
     * GRANTED, host->last_error() says which holders block it. A plugin holds
     * one request: asking again replaces it. DECK_E_NOT_ENTITLED for a context
     * its entitlements do not allow, DECK_E_INVALID for an unknown context or
     * type, DECK_E_STATE unless active. [loop-thread] */
    deck_status_t (*request_focus)(const deck_host_t *host, const deck_focus_request_t *request, int32_t *result);

    /* Gives focus up (held, paused or waiting); holders it paused or ducked
     * recover. [loop-thread] */
    deck_status_t (*abandon_focus)(const deck_host_t *host);

    void *reserved[8];
} deck_host_session_t;

/* Offered by the plugin (plugin->get_extension(plugin, DECK_EXT_SESSION)). */
typedef struct deck_plugin_session {
    /* The plugin's focus changed (a deck_focus_change_t). After a transient
     * loss ends, GAIN comes with `should_resume` true. [loop-thread] */
    void (*focus_changed)(const deck_plugin_t *plugin, int32_t change, bool should_resume);

    /* The output was activated (true) or deactivated after being idle
     * (false). [loop-thread] */
    void (*session_changed)(const deck_plugin_t *plugin, bool active);

    void *reserved[8];
} deck_plugin_session_t;

#ifdef __cplusplus
}
#endif

#endif /* DECK_PLUGIN_H */
