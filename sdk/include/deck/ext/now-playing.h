/*
 * deck/ext/now-playing.h — now playing, the queue and remote commands (deck.now-playing).
 *
 * An extension of the Deck plugin ABI (deck/core.h holds the core), added in ABI 1.1. Fetch it
 * by id with host->get_extension() or offer it from plugin->get_extension().
 */
#ifndef DECK_EXT_NOW_PLAYING_H
#define DECK_EXT_NOW_PLAYING_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ─── Now playing: deck.now-playing ──────────────────────────────────────
 *
 * The car has one now-playing state, one queue and one set of steering-wheel
 * buttons, as MPNowPlayingInfoCenter and MPRemoteCommandCenter give an iPhone.
 * Only the owner writes them: the plugin that holds music focus (deck.session),
 * or held it last and is paused or stopped. Anyone else is refused with
 * DECK_E_NOT_OWNER and host->last_error() names the owner. When another plugin
 * takes music focus for good, the center is emptied and becomes its.
 *
 * Elapsed time is an anchor: (elapsed, rate, the time of the call). Readers
 * extrapolate it, so an owner calls set_position() only when the position
 * jumps (a seek, a new track) or the rate or state changes, never to tick.
 *
 * Everything is copied during the call; limits (text 1024 bytes, artwork 1 MiB
 * of PNG or JPEG and 4096 x 4096 pixels as its header gives them, 1000 queue
 * items by default) are refused with DECK_E_LIMIT, malformed input (non-UTF-8,
 * NaN, an index out of range, duplicate item ids, an image header giving a
 * side of 0) with DECK_E_INVALID; the state stays as it was.
 *
 * The head unit's buttons, deckctl and MPRIS clients reach the owner as remote
 * commands through the plugin's deck_plugin_now_playing.command(), but only the
 * commands it enabled with set_commands(); others are refused by the host.
 */

#define DECK_EXT_NOW_PLAYING "deck.now-playing"

typedef enum deck_playback_state {
    DECK_PLAYBACK_STOPPED     = 0,
    DECK_PLAYBACK_PLAYING     = 1,
    DECK_PLAYBACK_PAUSED      = 2,
    DECK_PLAYBACK_INTERRUPTED = 3  /* paused by the session, e.g. during a call */
} deck_playback_state_t;

typedef enum deck_media_type {
    DECK_MEDIA_AUDIO     = 0,
    DECK_MEDIA_PODCAST   = 1,
    DECK_MEDIA_AUDIOBOOK = 2,
    DECK_MEDIA_RADIO     = 3
} deck_media_type_t;

typedef enum deck_shuffle_mode {
    DECK_SHUFFLE_OFF   = 0,
    DECK_SHUFFLE_ITEMS = 1
} deck_shuffle_mode_t;

typedef enum deck_repeat_mode {
    DECK_REPEAT_OFF = 0,
    DECK_REPEAT_ONE = 1,
    DECK_REPEAT_ALL = 2
} deck_repeat_mode_t;

/* What plays. Every pointer may be NULL (unknown); all of it is copied. */
typedef struct deck_now_playing_info {
    const char *title;
    const char *const *artists;     /* artist_count strings */
    uint32_t artist_count;
    const char *album;
    const char *album_artist;
    const uint8_t *artwork;         /* PNG or JPEG bytes, or NULL */
    size_t artwork_size;
    const char *artwork_uri;        /* or where to fetch it, or NULL */
    double duration;                /* seconds; negative: unknown; ignored when live */
    double elapsed;                 /* seconds, now */
    double rate;                    /* 1.0 at normal speed; 0 when not playing */
    double default_rate;            /* 0 reads as 1.0 */
    bool is_live;
    int32_t media_type;             /* deck_media_type_t */
    int32_t playback_state;         /* deck_playback_state_t */
    int32_t chapter_number;         /* from 0; negative: none */
    int32_t chapter_count;          /* 0: none */
    void *reserved[4];
} deck_now_playing_info_t;

/* One queue entry. `id` is the plugin's own, unique within the queue; the
 * runtime gives each a stable number of its own for clients. */
typedef struct deck_queue_item {
    const char *id;
    const char *title;              /* may be NULL */
    const char *artist;             /* may be NULL */
    double duration;                /* seconds; negative: unknown */
    const char *artwork_uri;        /* may be NULL */
    void *reserved[2];
} deck_queue_item_t;

typedef enum deck_command {
    DECK_COMMAND_PLAY               = 0,
    DECK_COMMAND_PAUSE              = 1,
    DECK_COMMAND_TOGGLE_PLAY_PAUSE  = 2,
    DECK_COMMAND_STOP               = 3,
    DECK_COMMAND_NEXT               = 4,
    DECK_COMMAND_PREVIOUS           = 5,
    DECK_COMMAND_SEEK               = 6,  /* value: the position, seconds   */
    DECK_COMMAND_SKIP               = 7,  /* value: ± seconds               */
    DECK_COMMAND_SET_RATE           = 8,  /* value: the rate                */
    DECK_COMMAND_SET_SHUFFLE        = 9,  /* mode: deck_shuffle_mode_t      */
    DECK_COMMAND_SET_REPEAT         = 10, /* mode: deck_repeat_mode_t       */
    DECK_COMMAND_LIKE               = 11,
    DECK_COMMAND_DISLIKE            = 12,
    DECK_COMMAND_BOOKMARK           = 13
} deck_command_t;

#define DECK_COMMAND_BIT(command) (1u << (command))

typedef enum deck_command_result {
    DECK_COMMAND_SUCCESS                        = 0,
    DECK_COMMAND_NO_SUCH_CONTENT                = 1,
    DECK_COMMAND_NO_ACTIONABLE_NOW_PLAYING_ITEM = 2,
    DECK_COMMAND_FAILED                         = 3,
    DECK_COMMAND_PENDING                        = -1  /* answered later: complete_command() */
} deck_command_result_t;

/* The commands a plugin carries out. */
typedef struct deck_command_set {
    uint32_t enabled;               /* DECK_COMMAND_BIT(...) | ... */
    double skip_forward_seconds;    /* preferred intervals; 0 reads as 15 */
    double skip_backward_seconds;
    void *reserved[2];
} deck_command_set_t;

typedef struct deck_remote_command {
    int32_t command;                /* deck_command_t */
    double value;
    int32_t mode;
    void *reserved[2];
} deck_remote_command_t;

/* Offered by the host (host->get_extension(host, DECK_EXT_NOW_PLAYING)). */
typedef struct deck_host_now_playing {
    /* Replaces what plays: every field, the artwork, and the position
     * anchor. [loop-thread] */
    deck_status_t (*set_info)(const deck_host_t *host, const deck_now_playing_info_t *info);

    /* Re-anchors the position: a seek, a rate change, pause or play
     * (`playback_state` a deck_playback_state_t). [loop-thread] */
    deck_status_t (*set_position)(const deck_host_t *host, double elapsed, double rate, int32_t playback_state);

    /* Empties now playing and the queue; the plugin stays the owner. [loop-thread] */
    deck_status_t (*clear)(const deck_host_t *host);

    /* Replaces the queue; `current_index` is the item playing, -1 for none.
     * [loop-thread] */
    deck_status_t (*set_queue)(const deck_host_t *host, const deck_queue_item_t *items, uint32_t count,
                               int32_t current_index);

    /* Moves the current item (-1: none) without resending the queue. [loop-thread] */
    deck_status_t (*set_queue_index)(const deck_host_t *host, int32_t current_index);

    /* Shuffle (deck_shuffle_mode_t) and repeat (deck_repeat_mode_t). [loop-thread] */
    deck_status_t (*set_modes)(const deck_host_t *host, int32_t shuffle, int32_t repeat);

    /* The remote commands the plugin carries out, and its skip intervals.
     * [loop-thread] */
    deck_status_t (*set_commands)(const deck_host_t *host, const deck_command_set_t *commands);

    /* Answers the command that was given `token` (a deck_command_result_t).
     * DECK_E_STATE once the token is answered or timed out. [loop-thread] */
    deck_status_t (*complete_command)(const deck_host_t *host, uint64_t token, int32_t result);

    void *reserved[8];
} deck_host_now_playing_t;

/* Offered by the plugin (plugin->get_extension(plugin, DECK_EXT_NOW_PLAYING)). */
typedef struct deck_plugin_now_playing {
    /* Carries out an enabled remote command. Return its deck_command_result_t,
     * or DECK_COMMAND_PENDING and call complete_command(token) later: within
     * 5 s by default, or the host answers DECK_COMMAND_FAILED for you.
     * [loop-thread] */
    int32_t (*command)(const deck_plugin_t *plugin, const deck_remote_command_t *command, uint64_t token);

    void *reserved[8];
} deck_plugin_now_playing_t;

#ifdef __cplusplus
}
#endif

#endif /* DECK_EXT_NOW_PLAYING_H */
