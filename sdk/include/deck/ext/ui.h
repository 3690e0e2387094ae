/*
 * deck/ext/ui.h — templates on the car's display (deck.ui).
 *
 * An extension of the Deck plugin ABI (deck/core.h holds the core), added in ABI 1.2. Fetch it
 * by id with host->get_extension() or offer it from plugin->get_extension().
 *
 * Why templates travel as JSON text. A plugin never draws: it describes templates (as CarPlay's
 * CPTemplate and Android for Cars' Template do) and the runtime holds them to the car's limits
 * before the head unit's HMI lays them out. Described as one JSON string per template:
 *  - a C author writes it with snprintf or any JSON library, in one call, without building and
 *    freeing a tree of structs through a dozen builder calls;
 *  - it is copy-only by construction: the host parses the text during the call and keeps no
 *    pointer into the plugin, which the same call across a process boundary also needs;
 *  - templates gain fields as keys, never as struct layout, so no edit ever breaks the ABI;
 *  - it is what the HMI receives (ui.get), plus the runtime's ids, so an author can compare.
 * Images are the exception: PNG or JPEG bytes are handed over once with add_image() and named
 * in the JSON by the id it returns ("image": 3), or given as a URI ("imageURI": "...").
 *
 * The template JSON (every text at most 120 characters; longer is truncated):
 *
 *   {"type": "list", "title": "Radio",
 *    "sections": [{"header": "Stations",
 *                  "items": [{"key": "fm4", "text": "FM4", "detail": "Alternative",
 *                             "image": 3, "accessory": "disclosure", "playing": true}]}]}
 *
 * type is one of tabBar, list, grid, information, alert, actionSheet, nowPlaying,
 * pointOfInterest, map, search, contact, voiceControl; docs/plugin-guide.md lists each one's
 * keys. `key` names an item or button in the plugin's own words (1 to 256 bytes, used once in
 * the template); select() hands it back. A tabBar holds its tabs as templates ("tabs": [...])
 * and may only be the root.
 *
 * Limits (from the display profile and the plugin's categories; docs/plugin-guide.md): a
 * template the plugin's entitlements do not allow is refused with DECK_E_NOT_ENTITLED; a
 * structural violation (too many tabs or actions, the stack too deep, a tab bar pushed, a
 * second modal, the template quota spent) with DECK_E_LIMIT and the UI unchanged; list-like
 * overflow (items, sections, points, information items) is truncated and *dropped tells how
 * much. host->last_error() names the rule and its value.
 */
#ifndef DECK_EXT_UI_H
#define DECK_EXT_UI_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ─── Templates: deck.ui ─────────────────────────────────────────────────*/

#define DECK_EXT_UI "deck.ui"

/* Offered by the host (host->get_extension(host, DECK_EXT_UI)). Every call
 * copies what it is given. `out_id` (may be NULL) receives the template's id;
 * `dropped` (may be NULL) how many list entries the limits truncated. While
 * no display is attached, every call but add_image and remove_image is
 * DECK_E_STATE. */
typedef struct deck_host_ui {
    /* Replaces the whole stack with this template, a new task. [loop-thread] */
    deck_status_t (*set_root)(const deck_host_t *host, const char *template_json, uint64_t *out_id, uint32_t *dropped);

    /* Pushes a template on the stack; counts against the task's quota.
     * [loop-thread] */
    deck_status_t (*push)(const deck_host_t *host, const char *template_json, uint64_t *out_id, uint32_t *dropped);

    /* Pops the top template (not the root); its quota is returned. [loop-thread] */
    deck_status_t (*pop)(const deck_host_t *host);

    /* Pops every template above the root. [loop-thread] */
    deck_status_t (*pop_to_root)(const deck_host_t *host);

    /* Presents an alert or action sheet over the stack; one at a time.
     * [loop-thread] */
    deck_status_t (*present)(const deck_host_t *host, const char *template_json, uint64_t *out_id);

    /* Dismisses the presented template. [loop-thread] */
    deck_status_t (*dismiss)(const deck_host_t *host);

    /* Replaces a template on the stack in place, keeping its id and the ids of
     * the items whose keys it still has (an item whose key left gets a new id
     * if it comes back): a refresh (a row's detail, a toggle), free of quota
     * when the type and the main content (title, the items' keys) stay the
     * same. [loop-thread] */
    deck_status_t (*update)(const deck_host_t *host, uint64_t template_id, const char *template_json, uint32_t *dropped);

    /* Ends the handling of the selection given `token`: the HMI's spinner
     * stops. DECK_E_STATE once it is completed or timed out. [loop-thread] */
    deck_status_t (*complete)(const deck_host_t *host, uint64_t token);

    /* Hands over PNG or JPEG bytes for templates to name by *out_image_id: at
     * most 1 MiB and, as the header gives them, 4096 x 4096 pixels by default
     * (over either, DECK_E_LIMIT). The host keeps them until remove_image() or
     * the plugin goes, display or not; bytes already kept get the id they were
     * given, at no cost. All of a plugin's images together are held to a budget
     * (32 MiB by default): over it, DECK_E_LIMIT. [loop-thread] */
    deck_status_t (*add_image)(const deck_host_t *host, const void *bytes, size_t size, uint64_t *out_image_id);

    /* Forgets an image, giving its bytes back to the budget: a cover once the
     * track changed, a station's picture once the list dropped it. One call
     * removes the id however often its bytes were added. DECK_E_INVALID for an
     * id not kept; DECK_E_STATE while a template on the stack shows it (update
     * or pop that one first). Added in ABI 1.6: check `host->abi.minor >= 6`
     * first. [loop-thread] */
    deck_status_t (*remove_image)(const deck_host_t *host, uint64_t image_id);

    void *reserved[7];
} deck_host_ui_t;

/* Offered by the plugin (plugin->get_extension(plugin, DECK_EXT_UI)). */
typedef struct deck_plugin_ui {
    /* The car's display attached (`attached` true) or went away. On attach the
     * plugin must call set_root() before returning, or it gets a placeholder
     * and a warning; `profile_json` is what display.get shows (size, scale,
     * limitedUserInterfaces). On detach its template ids become invalid;
     * audio plays on. [loop-thread] */
    void (*display_changed)(const deck_plugin_t *plugin, bool attached, const char *profile_json);

    /* The driver chose an item, button, tab or action: `key` is the plugin's
     * own key for it, in the template `template_id`. Call host complete(token)
     * when the work is done: within 10 s by default, or the host completes it
     * and counts it against the plugin. [loop-thread] */
    void (*select)(const deck_plugin_t *plugin, uint64_t template_id, const char *key, uint64_t token);

    /* The limits changed (driving started or ended): the visible templates
     * were held to them again (lists truncated, or full once more);
     * `limits_json` lists the limits now in force. [loop-thread] */
    void (*limits_changed)(const deck_plugin_t *plugin, const char *limits_json);

    void *reserved[8];
} deck_plugin_ui_t;

#ifdef __cplusplus
}
#endif

#endif /* DECK_EXT_UI_H */
