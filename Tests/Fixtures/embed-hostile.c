/*
 * An integrator's C program that uses libdeck the ways runtime.h allows and a few it refuses,
 * built with plain cc against sdk/include and loaded with dlopen, so the signal dispositions
 * before libdeck is in the process can be compared with those after. Prints "ok: …" per check
 * and "FAIL: …" for any that does not hold, then "done". Usage: embed-hostile LIBDECK
 */
#define _GNU_SOURCE
#include <deck/runtime.h>

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define API(name) static __typeof__(name) *p_##name;
API(deck_runtime_create) API(deck_runtime_destroy) API(deck_runtime_start) API(deck_runtime_process)
API(deck_runtime_call) API(deck_runtime_call_sync) API(deck_runtime_free) API(deck_runtime_backend_fd)
API(deck_runtime_backend_timeout) API(deck_runtime_set_packet_callback) API(deck_runtime_set_event_callback)
API(deck_runtime_subscribe) API(deck_runtime_set_audio_packet_callback)

static int failures;
static void check(int good, const char *what) {
    printf("%s: %s\n", good ? "ok" : "FAIL", what);
    if (!good) failures++;
}

static void dispositions(struct sigaction *out) {
    for (int number = 1; number < NSIG; number++) sigaction(number, NULL, &out[number]);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* What the callbacks saw when they called back in (mode 2); `done` is set last, with release. */
typedef struct { int destroy, sync, process, timeout, cleared, done; } reentry_t;
static reentry_t inside_reply, inside_packet, inside_audio;

static void reentrant(deck_runtime_t *rt, reentry_t *seen) {
    if (__atomic_load_n(&seen->done, __ATOMIC_ACQUIRE)) return;
    char *answer = NULL;
    seen->destroy = p_deck_runtime_destroy(rt);
    seen->sync = p_deck_runtime_call_sync(rt, "{\"jsonrpc\":\"2.0\",\"method\":\"runtime.info\",\"id\":9}", &answer, 1000);
    p_deck_runtime_free(answer);
    seen->process = p_deck_runtime_process(rt);
    seen->timeout = p_deck_runtime_backend_timeout(rt);
    __atomic_store_n(&seen->done, 1, __ATOMIC_RELEASE);
}

/* On the audio thread (API 1.4): the same calls, then it clears itself. */
static void on_audio_packet(void *user, const uint8_t *packet, size_t size, int64_t granule, uint32_t samples, uint32_t pre_skip,
                            bool end) {
    (void)packet; (void)size; (void)granule; (void)samples; (void)pre_skip; (void)end;
    if (__atomic_load_n(&inside_audio.done, __ATOMIC_ACQUIRE)) return;
    inside_audio.cleared = p_deck_runtime_set_audio_packet_callback(user, NULL, NULL);
    reentrant(user, &inside_audio);
}

static void on_reply(void *user, const char *response) { (void)response; reentrant(user, &inside_reply); }

static void on_packet(void *user, const uint8_t *packet, size_t size, int64_t granule, uint32_t samples, uint32_t pre_skip, bool end) {
    (void)packet; (void)size; (void)granule; (void)samples; (void)pre_skip; (void)end;
    reentrant(user, &inside_packet);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: embed-hostile LIBDECK\n"); return 2; }
    static struct sigaction before[NSIG], after[NSIG];
    dispositions(before);
    void *library = dlopen(argv[1], RTLD_NOW);
    if (!library) { printf("FAIL: dlopen: %s\n", dlerror()); return 1; }
#define LOAD(name) p_##name = (__typeof__(name) *)dlsym(library, #name);
    LOAD(deck_runtime_create) LOAD(deck_runtime_destroy) LOAD(deck_runtime_start) LOAD(deck_runtime_process)
    LOAD(deck_runtime_call) LOAD(deck_runtime_call_sync) LOAD(deck_runtime_free) LOAD(deck_runtime_backend_fd)
    LOAD(deck_runtime_backend_timeout) LOAD(deck_runtime_set_packet_callback) LOAD(deck_runtime_set_event_callback)
    LOAD(deck_runtime_subscribe) LOAD(deck_runtime_set_audio_packet_callback)

    char *error = NULL;
    check(p_deck_runtime_create("", &error) == NULL && error != NULL, "an empty config is refused with a reason");
    p_deck_runtime_free(error);
    error = NULL;
    check(p_deck_runtime_create("   ", &error) == NULL && error != NULL, "a blank config is refused with a reason");
    p_deck_runtime_free(error);

    /* call_sync needs a running runtime; a notification is not waited for. */
    deck_runtime_t *rt = p_deck_runtime_create(NULL, NULL);
    char *answer = NULL;
    int status = p_deck_runtime_call_sync(rt, "{\"jsonrpc\":\"2.0\",\"method\":\"runtime.info\",\"id\":1}", &answer, 1000);
    check(status == DECK_RUNTIME_E_STATE && answer != NULL && strstr(answer, "deck_runtime_start"),
          "call_sync on a handle that does not run is E_STATE, with a reason to free");
    p_deck_runtime_free(answer);
    check(p_deck_runtime_start(rt) == DECK_RUNTIME_OK, "start after a refused call_sync");
    check(p_deck_runtime_backend_fd(rt) == DECK_RUNTIME_E_STATE, "backend_fd in mode 1 is E_STATE");
    check(p_deck_runtime_backend_timeout(rt) == DECK_RUNTIME_E_STATE, "backend_timeout in mode 1 is E_STATE");
    double start = now_ms();
    answer = (char *)1;
    status = p_deck_runtime_call_sync(rt, "{\"jsonrpc\":\"2.0\",\"method\":\"events.subscribe\",\"params\":{\"topics\":[\"ui.changed\"]}}", &answer, 5000);
    check(status == DECK_RUNTIME_OK && answer == NULL && now_ms() - start < 1000, "call_sync of a notification returns at once with no answer");
    check(p_deck_runtime_destroy(rt) == DECK_RUNTIME_OK, "destroy in mode 1");

    /* Mode 2: calling back in from a reply and a packet callback is refused, never an abort. */
    rt = p_deck_runtime_create("{\"session\": {\"alwaysActive\": true}}", NULL);
    p_deck_runtime_set_packet_callback(rt, on_packet, rt);
    p_deck_runtime_set_audio_packet_callback(rt, on_audio_packet, rt);
    check(p_deck_runtime_call(rt, "{\"jsonrpc\":\"2.0\",\"method\":\"runtime.info\",\"id\":2}", on_reply, rt) == DECK_RUNTIME_OK, "call in mode 2");
    for (double end = now_ms() + 10000;
         !(inside_reply.done && inside_packet.done && __atomic_load_n(&inside_audio.done, __ATOMIC_ACQUIRE)) && now_ms() < end; usleep(2000))
        p_deck_runtime_process(rt);
    check(inside_reply.done && inside_packet.done, "the reply and packet callbacks ran inside process");
    check(__atomic_load_n(&inside_audio.done, __ATOMIC_ACQUIRE), "the audio-thread packet callback ran");
    check(inside_audio.cleared == DECK_RUNTIME_OK, "the audio-thread packet callback clears itself from inside");
    check(inside_audio.destroy == DECK_RUNTIME_E_STATE && inside_audio.sync == DECK_RUNTIME_E_STATE
          && inside_audio.process == DECK_RUNTIME_E_STATE && inside_audio.timeout == DECK_RUNTIME_E_STATE,
          "destroy, call_sync, process and backend_timeout on the audio thread are E_STATE");
    check(inside_reply.destroy == DECK_RUNTIME_E_STATE && inside_packet.destroy == DECK_RUNTIME_E_STATE, "destroy inside a callback is E_STATE");
    check(inside_reply.sync == DECK_RUNTIME_E_STATE && inside_packet.sync == DECK_RUNTIME_E_STATE, "call_sync inside a callback is E_STATE");
    check(inside_reply.process == DECK_RUNTIME_E_STATE && inside_packet.process == DECK_RUNTIME_E_STATE, "process inside a callback is E_STATE");
    check(inside_reply.timeout >= -1 && inside_packet.timeout >= -1, "backend_timeout inside a callback answers");
    status = p_deck_runtime_call_sync(rt, "{\"jsonrpc\":\"2.0\",\"method\":\"runtime.info\",\"id\":3}", &answer, 5000);
    check(status == DECK_RUNTIME_OK && answer && strstr(answer, "\"id\":3"), "call_sync in mode 2 outside callbacks");
    p_deck_runtime_free(answer);
    check(p_deck_runtime_destroy(rt) == DECK_RUNTIME_OK, "destroy in mode 2 outside callbacks");

    /* A destroyed handle is never reused and is told apart from a foreign one. */
    deck_runtime_t *freed[20];
    int reused = 0;
    for (int round = 0; round < 20; round++) {
        freed[round] = p_deck_runtime_create(NULL, NULL);
        for (int earlier = 0; earlier < round; earlier++) reused += freed[earlier] == freed[round];
        p_deck_runtime_destroy(freed[round]);
    }
    check(reused == 0, "20 handles created after each other's destroy are all different");
    check(p_deck_runtime_call(freed[3], "{}", NULL, NULL) == DECK_RUNTIME_E_STATE, "a stale handle is E_STATE");
    check(p_deck_runtime_call((deck_runtime_t *)&reused, "{}", NULL, NULL) == DECK_RUNTIME_E_INVALID, "a foreign pointer is E_INVALID");

    dispositions(after);
    int changed = 0;
    for (int number = 1; number < NSIG; number++) {
        if (before[number].sa_handler != after[number].sa_handler || before[number].sa_flags != after[number].sa_flags) {
            printf("signal %d: %p/%x became %p/%x\n", number, (void *)before[number].sa_handler, before[number].sa_flags,
                   (void *)after[number].sa_handler, after[number].sa_flags);
            changed++;
        }
    }
    check(changed == 0, "loading and using libdeck changed no signal disposition");
    printf("done\n");
    return failures ? 1 : 0;
}
