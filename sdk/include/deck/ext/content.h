/*
 * deck/ext/content.h — a browse tree the car's media UI pulls (deck.content).
 *
 * An extension of the Deck plugin ABI (deck/core.h holds the core), added in ABI 1.2. Fetch it
 * by id with host->get_extension() or offer it from plugin->get_extension().
 *
 * Audio apps need not build screens: like MPPlayableContentDataSource on CarPlay and
 * MediaBrowserService on Android Automotive, a plugin offers a tree of items that the head
 * unit's own media UI asks for lazily, a level at a time. A path names a node by child
 * indexes from the top, "" being the top and "0/3" the fourth child of the first; the top
 * level's items are the tabs. The runtime holds the tree to the context's limits (items per
 * level and depth, smaller while driving) and shows it in ui.get beside any templates.
 *
 * Calls and re-entry: the host never calls child_count, item or begin_loading from inside one of
 * the plugin's own host calls (add_image, reload, complete…), so a plugin may hold its own
 * locks across those. complete() may be called inside the begin_loading or play that handed out
 * the token; the host applies it on the next loop turn, never inside that call.
 */
#ifndef DECK_EXT_CONTENT_H
#define DECK_EXT_CONTENT_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ─── Content tree: deck.content ─────────────────────────────────────────*/

#define DECK_EXT_CONTENT "deck.content"

/* One node. The host copies its strings as soon as the call that fills it
 * returns, before it calls the plugin again: they need live only until then,
 * and may point into the `path` that call was given. */
typedef struct deck_content_item {
    const char *id;                 /* the plugin's own, unique in the tree */
    const char *title;
    const char *subtitle;           /* may be NULL */
    const char *artwork_uri;        /* may be NULL */
    bool playable;
    bool container;                 /* has children */
    bool streaming;                 /* a live stream (no duration) */
    void *reserved[4];
} deck_content_item_t;

/* Offered by the host (host->get_extension(host, DECK_EXT_CONTENT)). */
typedef struct deck_host_content {
    /* The tree changed: the host forgets what it read and asks again.
     * [loop-thread] */
    deck_status_t (*reload)(const deck_host_t *host);

    /* The ids of the items playing now, so the media UI can mark them.
     * [loop-thread] */
    deck_status_t (*set_now_playing_ids)(const deck_host_t *host, const char *const *ids, uint32_t count);

    /* Answers begin_loading() or play() given `token` (DECK_OK or an error
     * status). DECK_E_STATE once answered or timed out. After DECK_OK for a
     * load, child_count() must answer 0 or more. An error status (or no answer
     * within the timeout) shows the HMI that container as failed; the host
     * asks again only when the driver selects it again. May be called inside
     * begin_loading() or play(): applied on the next loop turn. [loop-thread] */
    deck_status_t (*complete)(const deck_host_t *host, uint64_t token, deck_status_t status);

    void *reserved[8];
} deck_host_content_t;

/* Offered by the plugin (plugin->get_extension(plugin, DECK_EXT_CONTENT)). */
typedef struct deck_plugin_content {
    /* How many children the node at `path` has now; negative when they are
     * not loaded yet (the host then calls begin_loading). [loop-thread] */
    int32_t (*child_count)(const deck_plugin_t *plugin, const char *path);

    /* Fills *item with the node at `path`. [loop-thread] */
    deck_status_t (*item)(const deck_plugin_t *plugin, const char *path, deck_content_item_t *item);

    /* Starts loading the children of `path`; call host complete(token) when
     * they are there: within 10 s by default. [loop-thread] */
    void (*begin_loading)(const deck_plugin_t *plugin, const char *path, uint64_t token);

    /* Starts playing the playable item at `path`; call host complete(token)
     * once it plays (or with why it cannot). [loop-thread] */
    void (*play)(const deck_plugin_t *plugin, const char *path, uint64_t token);

    void *reserved[8];
} deck_plugin_content_t;

#ifdef __cplusplus
}
#endif

#endif /* DECK_EXT_CONTENT_H */
