/*
 * deck/ext/session.h — audio focus and the output session (deck.session).
 *
 * An extension of the Deck plugin ABI (deck/core.h holds the core). Fetch it
 * by id with host->get_extension() or offer it from plugin->get_extension().
 */
#ifndef DECK_EXT_SESSION_H
#define DECK_EXT_SESSION_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ─── Audio session: deck.session ────────────────────────────────────────
 *
 * One car, one output, many apps: before opening a stream a plugin requests
 * audio focus for a context ("music", "navigation", "call", …). The runtime
 * answers by its interaction matrix (Android Automotive's by default):
 * granted, delayed (granted later, when the blockers leave), or rejected.
 * Holders that lose are told through the plugin's deck.session extension;
 * the runtime itself ducks (-14 dB by default) and mutes their streams, so a
 * plugin never scales its own output for focus. Paused means paused: after a
 * short fade, a paused stream's render() is not called until it gets focus
 * back, so its content does not advance (a plugin need not pause itself). The output starts on the
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

/* Wait for focus (at most one request waits) instead of being rejected; for
 * DECK_FOCUS_GAIN only, as in AAOS: a transient request with it is decided as
 * if it had not asked (granted or rejected at once). */
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

#endif /* DECK_EXT_SESSION_H */
