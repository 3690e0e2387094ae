/*
 * deck/ext/audio.h — pulled 48 kHz stereo audio (deck.audio).
 *
 * An extension of the Deck plugin ABI (deck/core.h holds the core). Fetch it
 * by id with host->get_extension() or offer it from plugin->get_extension().
 */
#ifndef DECK_EXT_AUDIO_H
#define DECK_EXT_AUDIO_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

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
     * how many it wrote. Must not block, lock, allocate or do I/O; only in
     * freewheel (the host's is_freewheeling()) may it wait, briefly, for audio
     * the plugin is still producing. [audio-thread] */
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
     * and will not be called again until the next open_stream(). The host
     * fades the stream out first (about 10 ms, so it never clicks), pulling
     * render() during the fade; while the output runs, the call therefore
     * takes up to one frame. A stream also fades in from its first sample.
     * Closing a closed stream is DECK_OK. [loop-thread] */
    deck_status_t (*close_stream)(const deck_host_t *host);

    /* Returns true when the host renders as fast as it can instead of in
     * real time (`deckd --freewheel`: a render to a file); the answer does not
     * change while the plugin exists. Nobody listens live then, so a render()
     * whose audio comes from a thread of the plugin's own (a decoder, the
     * network) may wait up to 40 ms for it instead of returning silence, and
     * the file has no gaps the real-time output would not have had. A longer
     * wait is a late frame to the host. Added in ABI 1.5: check
     * `host->abi.minor >= 5` first. [any-thread] */
    bool (*is_freewheeling)(const deck_host_t *host);

    void *reserved[7];
} deck_host_audio_t;

#ifdef __cplusplus
}
#endif

#endif /* DECK_EXT_AUDIO_H */
