/*
 * Embeds the Deck runtime in a program's own libuv loop (mode 2 of deck/runtime.h): the
 * runtime's wakeup rings a uv_async_t, and the loop calls deck_runtime_process. It loads the
 * plugins of a folder and, as a client handle named "hmi", starts Tone through a tagged
 * JSON-RPC call, takes the answer and the session and now-playing events from its queue, and
 * writes the runtime's Opus packets into an Ogg Opus file with libogg.
 *
 * With --audio-thread the packets are taken on the audio thread itself (API 1.4), which copies
 * each into a lock-free ring and returns; a 100 ms timer of the loop writes them out. The runtime
 * then wakes nobody per packet.
 *
 *   ./embed [--audio-thread] PLUGIN_FOLDER OUT.opus [SECONDS]
 */
#define _POSIX_C_SOURCE 200809L  /* uv.h needs pthread_rwlock_t */
#include <deck/runtime.h>
#include <ogg/ogg.h>
#include <uv.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    FILE *file;
    ogg_stream_state stream;
    int64_t packetno;
    int started, ended;
    unsigned long packets;
} ogg_out_t;

static deck_runtime_t *rt, *hmi;
enum { LAUNCH = 1 };  /* the reply tag of the apps.launch call */
static uv_async_t wake;
static uv_timer_t again, stop;

static void write_pages(ogg_out_t *out, int flush) {
    ogg_page page;
    while (flush ? ogg_stream_flush(&out->stream, &page) : ogg_stream_pageout(&out->stream, &page)) {
        fwrite(page.header, 1, page.header_len, out->file);
        fwrite(page.body, 1, page.body_len, out->file);
    }
}

static void put_le(unsigned char *at, uint32_t value, int bytes) {
    for (int i = 0; i < bytes; i++) at[i] = (unsigned char)(value >> (8 * i));
}

/* RFC 7845: the identification and comment headers, each on a page of its own. */
static void write_headers(ogg_out_t *out, uint32_t pre_skip) {
    unsigned char head[19] = "OpusHead";
    head[8] = 1;                      /* version */
    head[9] = 2;                      /* channels */
    put_le(head + 10, pre_skip, 2);
    put_le(head + 12, 48000, 4);      /* input sample rate */
    put_le(head + 16, 0, 2);          /* output gain */
    head[18] = 0;                     /* channel mapping family */
    ogg_packet packet = { head, sizeof head, 1, 0, 0, out->packetno++ };
    ogg_stream_packetin(&out->stream, &packet);
    write_pages(out, 1);
    static const char vendor[] = "deck embed example";
    unsigned char tags[8 + 4 + sizeof vendor - 1 + 4];
    memcpy(tags, "OpusTags", 8);
    put_le(tags + 8, sizeof vendor - 1, 4);
    memcpy(tags + 12, vendor, sizeof vendor - 1);
    put_le(tags + 12 + sizeof vendor - 1, 0, 4);
    ogg_packet comments = { tags, sizeof tags, 0, 0, 0, out->packetno++ };
    ogg_stream_packetin(&out->stream, &comments);
    write_pages(out, 1);
}

/* On the loop's thread, inside deck_runtime_process: never on the audio thread. */
static void on_packet(void *user, const uint8_t *data, size_t size, int64_t granule, uint32_t samples, uint32_t pre_skip,
                      bool end_of_stream) {
    ogg_out_t *out = user;
    (void)samples;
    if (out->ended) return;  /* one run per file: later runs would be chained links */
    if (!out->started) {
        write_headers(out, pre_skip);
        out->started = 1;
    }
    ogg_packet packet = { (unsigned char *)data, (long)size, 0, end_of_stream, granule, out->packetno++ };
    ogg_stream_packetin(&out->stream, &packet);
    write_pages(out, end_of_stream);
    out->packets++;
    if (end_of_stream) out->ended = 1;
}

/* A single-producer, single-consumer ring of packets: the audio thread writes, the loop reads. */
enum { RING_SLOTS = 256, SLOT_BYTES = 4000 };
typedef struct {
    uint8_t data[SLOT_BYTES];
    size_t size;
    int64_t granule;
    uint32_t pre_skip;
    bool end_of_stream;
} slot_t;
static slot_t ring[RING_SLOTS];
static atomic_size_t ring_head, ring_tail;  /* next to read (loop), next to write (audio thread) */
static atomic_ulong ring_dropped;
static uv_timer_t drain;

/* On the audio thread, inside its 20 ms frame: copy and return, never block. */
static void on_audio_packet(void *user, const uint8_t *data, size_t size, int64_t granule, uint32_t samples, uint32_t pre_skip,
                            bool end_of_stream) {
    (void)user, (void)samples;
    size_t tail = atomic_load_explicit(&ring_tail, memory_order_relaxed);
    if (tail - atomic_load_explicit(&ring_head, memory_order_acquire) == RING_SLOTS || size > SLOT_BYTES) {
        atomic_fetch_add_explicit(&ring_dropped, 1, memory_order_relaxed);
        return;
    }
    slot_t *slot = &ring[tail % RING_SLOTS];
    memcpy(slot->data, data, size);
    slot->size = size, slot->granule = granule, slot->pre_skip = pre_skip, slot->end_of_stream = end_of_stream;
    atomic_store_explicit(&ring_tail, tail + 1, memory_order_release);
}

/* On the loop's thread: writes what the audio thread queued. */
static void drain_ring(ogg_out_t *out) {
    size_t head = atomic_load_explicit(&ring_head, memory_order_relaxed);
    while (head != atomic_load_explicit(&ring_tail, memory_order_acquire)) {
        slot_t *slot = &ring[head % RING_SLOTS];
        on_packet(out, slot->data, slot->size, slot->granule, 0, slot->pre_skip, slot->end_of_stream);
        atomic_store_explicit(&ring_head, ++head, memory_order_release);
    }
}

static void on_drain(uv_timer_t *timer) { drain_ring(timer->data); }

static void show_event(const char *notification) {
    if (strstr(notification, "\"session.changed\"")) printf("event: session.changed\n");
    if (strstr(notification, "\"nowPlaying.changed\"") && strstr(notification, "\"title\":\"")) {
        const char *title = strstr(notification, "\"title\":\"") + 9;
        printf("event: now playing %.*s\n", (int)(strchr(title, '"') - title), title);
    }
}

/* Runs the runtime's pending work, takes what it made for the client from its queue (no event
 * or reply callback is set, so notifications and tagged answers wait there; 0: do not wait), then
 * waits at most the runtime's next timer before running it again. */
static void process(void) {
    deck_runtime_process(rt);
    deck_runtime_message_t message;
    while (deck_runtime_wait_message(hmi, 0, &message) == DECK_RUNTIME_OK) {
        if (message.kind == DECK_RUNTIME_MESSAGE_REPLY && message.reply_tag == LAUNCH)
            printf("apps.launch answered: %.60s\n", message.json);
        else if (message.kind == DECK_RUNTIME_MESSAGE_EVENT)
            show_event(message.json);
        deck_runtime_free(message.json);
    }
    int timeout = deck_runtime_backend_timeout(rt);
    if (timeout >= 0) uv_timer_start(&again, (uv_timer_cb)process, (uint64_t)timeout, 0);
}

static void on_wake(uv_async_t *handle) { (void)handle; process(); }
static void wakeup(void *user) { (void)user; uv_async_send(&wake); }  /* any thread: only wakes the loop */

static void on_stop(uv_timer_t *timer) {
    (void)timer;
    deck_runtime_destroy(hmi);              /* the client first: its focus and subscriptions go */
    int status = deck_runtime_destroy(rt);  /* on the loop's thread: the output ends with end of stream */
    printf("destroyed: %s\n", deck_runtime_status_string(status));
    if (uv_is_active((uv_handle_t *)&drain)) drain_ring(drain.data);  /* the last packets, end of stream included */
    uv_close((uv_handle_t *)&drain, NULL);
    uv_close((uv_handle_t *)&wake, NULL);
    uv_close((uv_handle_t *)&again, NULL);
    uv_close((uv_handle_t *)&stop, NULL);
}

int main(int argc, char **argv) {
    bool on_audio_thread = argc > 1 && strcmp(argv[1], "--audio-thread") == 0;
    if (on_audio_thread) argc--, argv++;
    if (argc < 3) {
        fprintf(stderr, "usage: %s [--audio-thread] PLUGIN_FOLDER OUT.opus [SECONDS]\n", argv[0]);
        return 2;
    }
    uint32_t api = deck_runtime_api_version();
    int needed = on_audio_thread ? 4 : 2;  /* 1.4: the audio-thread packet callback; 1.2: clients and reply tags */
    if ((api >> 16) != DECK_RUNTIME_API_VERSION_MAJOR || api < DECK_RUNTIME_MAKE_VERSION(1, needed)) {
        fprintf(stderr, "libdeck speaks API %u.%u; this program needs %d.%d or a later 1.x\n", api >> 16, api & 0xFFFF,
                DECK_RUNTIME_API_VERSION_MAJOR, needed);
        return 1;
    }
    char config[4096];
    snprintf(config, sizeof config, "{\"plugins\": [\"%s\"], \"logLevel\": \"warning\", \"session\": {\"alwaysActive\": true}}", argv[1]);
    char *error = NULL;
    rt = deck_runtime_create(config, &error);
    if (!rt) {
        fprintf(stderr, "deck_runtime_create: %s\n", error);
        deck_runtime_free(error);
        return 1;
    }
    ogg_out_t out = { 0 };
    out.file = fopen(argv[2], "wb");
    if (!out.file) {
        perror(argv[2]);
        return 1;
    }
    ogg_stream_init(&out.stream, 0x0DEC);

    uv_loop_t *loop = uv_default_loop();
    uv_async_init(loop, &wake, on_wake);
    uv_timer_init(loop, &again);
    uv_timer_init(loop, &stop);
    uv_timer_init(loop, &drain);
    hmi = deck_runtime_create_client(rt, "hmi");
    deck_runtime_subscribe(hmi, "session.changed");
    deck_runtime_subscribe(hmi, "nowPlaying.changed");
    if (on_audio_thread) {
        drain.data = &out;
        uv_timer_start(&drain, on_drain, 100, 100);
        deck_runtime_set_audio_packet_callback(rt, on_audio_packet, NULL);
    } else {
        deck_runtime_set_packet_callback(rt, on_packet, &out);
    }
    deck_runtime_call_tagged(hmi, "{\"jsonrpc\":\"2.0\",\"method\":\"apps.launch\",\"params\":{\"id\":\"org.deck.tone\",\"item\":\"sine-440\"},\"id\":1}",
                             LAUNCH);
    deck_runtime_set_wakeup(rt, wakeup, NULL);
    uv_timer_start(&stop, on_stop, (uint64_t)(argc > 3 ? atof(argv[3]) * 1000 : 2000), 0);
    uv_run(loop, UV_RUN_DEFAULT);

    ogg_stream_clear(&out.stream);
    fclose(out.file);
    printf("wrote %lu packets to %s%s\n", out.packets, argv[2], on_audio_thread ? " (taken on the audio thread)" : "");
    if (atomic_load(&ring_dropped)) printf("the ring was full for %lu packets\n", atomic_load(&ring_dropped));
    uv_loop_close(loop);
    return out.ended ? 0 : 1;
}
