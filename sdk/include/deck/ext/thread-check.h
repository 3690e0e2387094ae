/*
 * deck/ext/thread-check.h — asserting the thread tags (deck.thread-check).
 *
 * An extension of the Deck plugin ABI (deck/core.h holds the core). Fetch it
 * by id with host->get_extension() or offer it from plugin->get_extension().
 */
#ifndef DECK_EXT_THREAD_CHECK_H
#define DECK_EXT_THREAD_CHECK_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* DECK_EXT_THREAD_CHECK_H */
