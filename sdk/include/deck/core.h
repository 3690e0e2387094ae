/*
 * deck/core.h — the Deck plugin ABI, version 1: its core.
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
 *    This header holds the core and includes no other Deck header; each
 *    extension has its own header in deck/ext/ (audio.h, session.h,
 *    thread-check.h, now-playing.h, ui.h, content.h), which includes this one,
 *    and deck/deck.h includes them all. deck/plugin.h is the core with the
 *    extensions of ABI 1.0, as sources written against 1.0 include it.
 *  - How an extension evolves: a compatible change only appends functions to
 *    its struct, in an ABI minor that says so in the extension's header (a
 *    side reads the other's `abi` before calling an appended function). An
 *    incompatible change is a new extension whose id carries a version
 *    ("deck.audio/2"); the id without a suffix is version 1, and a host keeps
 *    offering every version it ever offered for the same ABI major, so a
 *    plugin asks for the newest it knows and falls back to older ones.
 *  - Every host call that can fail returns a deck_status; host->last_error()
 *    gives the human-readable reason.
 *  - Every function carries a thread tag:
 *      [loop-thread]   called only on the runtime's event-loop thread
 *      [audio-thread]  called only on the runtime's audio thread
 *      [any-thread]    may be called from any thread, concurrently
 *  - The integrator chooses where a plugin runs: in a deck-plugin-host process
 *    of its own (the default) or in the runtime's process. The ABI is the same;
 *    in a host process, its main thread stands in for the loop thread and a
 *    render thread for the audio thread (deck.thread-check answers for them),
 *    render() runs ahead of the mix, and a crash or hang ends only that process.
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
#ifndef DECK_CORE_H
#define DECK_CORE_H

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
#define DECK_ABI_VERSION_MINOR 6
#define DECK_ABI_VERSION_PATCH 0

typedef struct deck_abi_version {
    uint32_t major;
    uint32_t minor;
    uint32_t patch;
} deck_abi_version_t;

#define DECK_ABI_VERSION_INIT \
    { DECK_ABI_VERSION_MAJOR, DECK_ABI_VERSION_MINOR, DECK_ABI_VERSION_PATCH }

/* True when a side implementing `version` can work with this header's ABI:
 * same major, and a minor not newer than this header's. The runtime applies
 * the same rule to plugins; a plugin may apply it to host->abi. [any-thread] */
static inline bool deck_abi_is_compatible(deck_abi_version_t version) {
    return version.major == DECK_ABI_VERSION_MAJOR && version.minor <= DECK_ABI_VERSION_MINOR;
}

/* ─── Symbol visibility ──────────────────────────────────────────────────
 *
 * Mark deck_plugin_entry() with DECK_EXPORT so it stays visible when the
 * library is built with -fvisibility=hidden (recommended: export nothing else).
 */

#if defined(__GNUC__) || defined(__clang__)
#define DECK_EXPORT __attribute__((visibility("default")))
#else
#define DECK_EXPORT
#endif

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
    DECK_E_INTERNAL     = -6, /* the callee failed for its own reasons      */
    DECK_E_NOT_OWNER    = -7  /* another plugin owns this (ABI 1.1)          */
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
     * plugin's next host call. Called on any other thread, it says why the
     * latest call refused off the loop thread was refused (a [loop-thread]
     * call made there, or request_callback after destroy); that text stays
     * valid for the life of the process, and a refusal off the loop thread
     * never changes what the loop thread reads. [any-thread] */
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

    /* Returns the folder this plugin may write (favourites, caches, downloads):
     * its own, kept across restarts of the plugin and of the runtime, and in a
     * host process the only place it can write at all. NULL when the
     * integrator gives plugins no data folders. The string stays valid as long
     * as the host struct does. Added in ABI 1.3: a plugin built for 1.3 that
     * may run on an older runtime checks `host->abi.minor >= 3` first.
     * [any-thread] */
    const char *(*data_path)(const deck_host_t *host);

    /* Returns true when the plugin's manifest declares `permission` (e.g.
     * "network", "media", "services") and the integrator's policy grants it; the sandbox
     * of a host process lets it reach only what it holds. Added in ABI 1.3.
     * [any-thread] */
    bool (*has_permission)(const deck_host_t *host, const char *permission);

    /* Returns the integrator's settings for this plugin as the text of one
     * JSON object (the runtime config's `appSettings`, by plugin id), "{}"
     * when it gave none. When the plugin holds the "media" permission, the
     * runtime sets the object's "mediaFolders" to the folders it may read
     * (replacing any given). The string stays valid as long as the host
     * struct does. Added in ABI 1.4: check `host->abi.minor >= 4` first.
     * [any-thread] */
    const char *(*settings)(const deck_host_t *host);

    /* Room to grow without changing the struct's size; always NULL so far. */
    void *reserved[5];
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

    /* Frees the instance. No call reaches the plugin after this one. Join
     * every thread the plugin started before returning: the library may be
     * unloaded right after. [loop-thread] */
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
DECK_EXPORT const deck_plugin_entry_t *deck_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* DECK_CORE_H */
