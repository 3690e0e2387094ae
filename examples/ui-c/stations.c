/*
 * stations.c — a small but complete audio app for Deck, in plain C against sdk/include only.
 *
 * Its "stations" are tones (so it needs no network), but it does what a radio app does: a list
 * template of the stations for the car's screen, the same stations as a content tree for the
 * media UI, now playing (title, artist, live, the station list as the queue), remote commands
 * (play, pause, toggle, stop, next, previous), focus requested before it plays and given up when
 * it stops, and a stream rendered on the audio thread without locks.
 */
#include <deck/deck.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO_PI 6.283185307179586

typedef struct station { const char *id, *name; double frequency; } station_t;

static const station_t stations[] = {
    { "a440", "Station A (440 Hz)", 440 }, { "c523", "Station C (523 Hz)", 523.25 },
    { "e659", "Station E (659 Hz)", 659.25 }, { "g784", "Station G (784 Hz)", 783.99 },
};
#define STATION_COUNT ((int)(sizeof stations / sizeof stations[0]))

typedef struct app {
    deck_plugin_t plugin;
    const deck_host_t *host;
    const deck_host_audio_t *audio;
    const deck_host_session_t *session;
    const deck_host_now_playing_t *now_playing;
    const deck_host_ui_t *ui;
    const deck_host_content_t *content;
    int current;            /* the station playing or last played; loop thread */
    bool playing;           /* loop thread */
    atomic_int tuned;       /* what render plays: written on the loop thread, read on the audio thread */
    double phase;           /* audio thread only */
} app_t;

static app_t *app_of(const deck_plugin_t *plugin) { return plugin->plugin_data; }

static void log_error(app_t *app, const char *what) {
    char line[400];
    snprintf(line, sizeof line, "%s: %s", what, app->host->last_error(app->host));
    app->host->log(app->host, DECK_LOG_WARNING, line);
}

static int station_index(const char *id) {
    for (int index = 0; index < STATION_COUNT; index++) {
        if (id && strcmp(stations[index].id, id) == 0) return index;
    }
    return -1;
}

/* Now playing and the queue, for the station at `app->current`. */
static void publish(app_t *app) {
    const char *artists[] = { "Example Stations" };
    deck_now_playing_info_t info = {
        .title = stations[app->current].name, .artists = artists, .artist_count = 1, .duration = -1,
        .rate = app->playing ? 1 : 0, .is_live = true, .media_type = DECK_MEDIA_RADIO,
        .playback_state = app->playing ? DECK_PLAYBACK_PLAYING : DECK_PLAYBACK_PAUSED, .chapter_number = -1,
    };
    if (app->now_playing->set_info(app->host, &info) != DECK_OK) log_error(app, "set_info");
    deck_queue_item_t queue[STATION_COUNT];
    memset(queue, 0, sizeof queue);
    for (int index = 0; index < STATION_COUNT; index++) {
        queue[index].id = stations[index].id;
        queue[index].title = stations[index].name;
        queue[index].duration = -1;
    }
    if (app->now_playing->set_queue(app->host, queue, STATION_COUNT, app->current) != DECK_OK) log_error(app, "set_queue");
    deck_command_set_t commands = { .enabled = DECK_COMMAND_BIT(DECK_COMMAND_PLAY) | DECK_COMMAND_BIT(DECK_COMMAND_PAUSE) |
        DECK_COMMAND_BIT(DECK_COMMAND_TOGGLE_PLAY_PAUSE) | DECK_COMMAND_BIT(DECK_COMMAND_STOP) |
        DECK_COMMAND_BIT(DECK_COMMAND_NEXT) | DECK_COMMAND_BIT(DECK_COMMAND_PREVIOUS) };
    if (app->now_playing->set_commands(app->host, &commands) != DECK_OK) log_error(app, "set_commands");
    const char *ids[] = { stations[app->current].id };
    app->content->set_now_playing_ids(app->host, ids, 1);
}

/* Tunes to `index` and plays: focus first, then the stream. */
static deck_status_t play_station(app_t *app, int index) {
    if (index < 0 || index >= STATION_COUNT) return DECK_E_INVALID;
    app->current = index;
    atomic_store(&app->tuned, index);
    deck_focus_request_t request = { .context = "music", .type = DECK_FOCUS_GAIN };
    int32_t result = DECK_FOCUS_REJECTED;
    if (app->session->request_focus(app->host, &request, &result) != DECK_OK || result != DECK_FOCUS_GRANTED) {
        log_error(app, "request_focus");
        return DECK_E_STATE;
    }
    if (app->audio->open_stream(app->host) != DECK_OK) {
        log_error(app, "open_stream");
        return DECK_E_STATE;
    }
    app->playing = true;
    publish(app);
    return DECK_OK;
}

/* Pauses (keeping focus and now playing) or stops (giving both up). */
static void halt(app_t *app, bool stop) {
    app->audio->close_stream(app->host);
    app->playing = false;
    if (stop) {
        app->session->abandon_focus(app->host);
        app->now_playing->set_position(app->host, 0, 0, DECK_PLAYBACK_STOPPED);
    } else {
        app->now_playing->set_position(app->host, 0, 0, DECK_PLAYBACK_PAUSED);
    }
}

/* ─── deck.audio ─── */

static deck_status_t audio_start(const deck_plugin_t *plugin, const char *item_id) {
    app_t *app = app_of(plugin);
    return play_station(app, item_id ? station_index(item_id) : app->current);
}

static void audio_stop(const deck_plugin_t *plugin) { halt(app_of(plugin), true); }

static uint32_t audio_render(const deck_plugin_t *plugin, uint32_t frames, float *out) {
    app_t *app = app_of(plugin);
    double step = TWO_PI * stations[atomic_load(&app->tuned)].frequency / DECK_AUDIO_SAMPLE_RATE;
    for (uint32_t frame = 0; frame < frames; frame++) {
        float sample = (float)(0.25 * sin(app->phase));
        out[frame * 2] = out[frame * 2 + 1] = sample;
        app->phase = fmod(app->phase + step, TWO_PI);
    }
    return frames;
}

static const deck_plugin_audio_t app_audio = { .start = audio_start, .stop = audio_stop, .render = audio_render };

/* ─── deck.session: a loss for good stops; a transient loss is the runtime's to pause ─── */

static void focus_changed(const deck_plugin_t *plugin, int32_t change, bool should_resume) {
    (void)should_resume;
    if (change == DECK_FOCUS_CHANGE_LOSS) halt(app_of(plugin), true);
}

static void session_changed(const deck_plugin_t *plugin, bool active) { (void)plugin; (void)active; }

static const deck_plugin_session_t app_session = { .focus_changed = focus_changed, .session_changed = session_changed };

/* ─── deck.now-playing: remote commands ─── */

static int32_t command(const deck_plugin_t *plugin, const deck_remote_command_t *remote, uint64_t token) {
    app_t *app = app_of(plugin);
    (void)token;
    switch (remote->command) {
    case DECK_COMMAND_PLAY: return play_station(app, app->current) == DECK_OK ? DECK_COMMAND_SUCCESS : DECK_COMMAND_FAILED;
    case DECK_COMMAND_PAUSE: halt(app, false); return DECK_COMMAND_SUCCESS;
    case DECK_COMMAND_TOGGLE_PLAY_PAUSE:
        if (app->playing) { halt(app, false); return DECK_COMMAND_SUCCESS; }
        return play_station(app, app->current) == DECK_OK ? DECK_COMMAND_SUCCESS : DECK_COMMAND_FAILED;
    case DECK_COMMAND_STOP: halt(app, true); return DECK_COMMAND_SUCCESS;
    case DECK_COMMAND_NEXT:
    case DECK_COMMAND_PREVIOUS: {
        int step = remote->command == DECK_COMMAND_NEXT ? 1 : STATION_COUNT - 1;
        return play_station(app, (app->current + step) % STATION_COUNT) == DECK_OK ? DECK_COMMAND_SUCCESS : DECK_COMMAND_FAILED;
    }
    default: return DECK_COMMAND_FAILED;
    }
}

static const deck_plugin_now_playing_t app_now_playing = { .command = command };

/* ─── deck.ui: one list of the stations ─── */

static void display_changed(const deck_plugin_t *plugin, bool attached, const char *profile_json) {
    app_t *app = app_of(plugin);
    (void)profile_json;
    if (!attached) return;
    char root[1024] = "{\"type\": \"list\", \"title\": \"Stations\", \"items\": [";
    for (int index = 0; index < STATION_COUNT; index++) {
        char item[160];
        snprintf(item, sizeof item, "%s{\"key\": \"%s\", \"text\": \"%s\", \"detail\": \"Example Stations\"}",
                 index ? ", " : "", stations[index].id, stations[index].name);
        strcat(root, item);
    }
    strcat(root, "]}");
    if (app->ui->set_root(app->host, root, NULL, NULL) != DECK_OK) log_error(app, "set_root");
}

static void on_select(const deck_plugin_t *plugin, uint64_t template_id, const char *key, uint64_t token) {
    app_t *app = app_of(plugin);
    (void)template_id;
    if (play_station(app, station_index(key)) != DECK_OK) log_error(app, "select");
    app->ui->complete(app->host, token);
}

static void limits_changed(const deck_plugin_t *plugin, const char *limits_json) { (void)plugin; (void)limits_json; }

static const deck_plugin_ui_t app_ui = { .display_changed = display_changed, .select = on_select, .limits_changed = limits_changed };

/* ─── deck.content: a Stations tab with a playable item per station ─── */

static int32_t child_count(const deck_plugin_t *plugin, const char *path) {
    (void)plugin;
    if (strcmp(path, "") == 0) return 1;
    if (strcmp(path, "0") == 0) return STATION_COUNT;
    return 0;
}

static deck_status_t content_item(const deck_plugin_t *plugin, const char *path, deck_content_item_t *item) {
    (void)plugin;
    if (strcmp(path, "0") == 0) {
        item->id = "stations";
        item->title = "Stations";
        item->container = true;
        return DECK_OK;
    }
    int index = -1;
    if (sscanf(path, "0/%d", &index) != 1 || index < 0 || index >= STATION_COUNT) return DECK_E_INVALID;
    item->id = stations[index].id;
    item->title = stations[index].name;
    item->subtitle = "Example Stations";
    item->playable = true;
    item->streaming = true;
    return DECK_OK;
}

static void begin_loading(const deck_plugin_t *plugin, const char *path, uint64_t token) {
    app_t *app = app_of(plugin);
    (void)path;
    app->content->complete(app->host, token, DECK_OK);  /* everything is there already */
}

static void content_play(const deck_plugin_t *plugin, const char *path, uint64_t token) {
    app_t *app = app_of(plugin);
    int index = -1;
    deck_status_t status = sscanf(path, "0/%d", &index) == 1 ? play_station(app, index) : DECK_E_INVALID;
    app->content->complete(app->host, token, status);
}

static const deck_plugin_content_t app_content = {
    .child_count = child_count, .item = content_item, .begin_loading = begin_loading, .play = content_play,
};

/* ─── The plugin ─── */

static const deck_plugin_descriptor_t app_descriptor = {
    .abi = DECK_ABI_VERSION_INIT,
    .id = "org.example.stations",
    .name = "Stations",
    .version = "1.0.0",
    .vendor = "Example Vendor",
    .description = "A small audio app: a station list, a content tree, now playing and remote commands",
};

static deck_status_t app_init(const deck_plugin_t *plugin) {
    app_t *app = app_of(plugin);
    app->audio = app->host->get_extension(app->host, DECK_EXT_AUDIO);
    app->session = app->host->get_extension(app->host, DECK_EXT_SESSION);
    app->now_playing = app->host->get_extension(app->host, DECK_EXT_NOW_PLAYING);
    app->ui = app->host->get_extension(app->host, DECK_EXT_UI);
    app->content = app->host->get_extension(app->host, DECK_EXT_CONTENT);
    if (!app->audio || !app->session || !app->now_playing || !app->ui || !app->content) {
        app->host->log(app->host, DECK_LOG_ERROR, "this runtime lacks an extension Stations needs (ABI 1.2)");
        return DECK_E_UNSUPPORTED;
    }
    return DECK_OK;
}

static deck_status_t app_activate(const deck_plugin_t *plugin) { (void)plugin; return DECK_OK; }

static void app_deactivate(const deck_plugin_t *plugin) {
    app_t *app = app_of(plugin);
    if (app->playing) halt(app, true);
}

static void app_destroy(const deck_plugin_t *plugin) { free(app_of(plugin)); }

static const void *app_get_extension(const deck_plugin_t *plugin, const char *id) {
    (void)plugin;
    if (strcmp(id, DECK_EXT_AUDIO) == 0) return &app_audio;
    if (strcmp(id, DECK_EXT_SESSION) == 0) return &app_session;
    if (strcmp(id, DECK_EXT_NOW_PLAYING) == 0) return &app_now_playing;
    if (strcmp(id, DECK_EXT_UI) == 0) return &app_ui;
    if (strcmp(id, DECK_EXT_CONTENT) == 0) return &app_content;
    return NULL;
}

static void app_on_callback(const deck_plugin_t *plugin) { (void)plugin; }

static const deck_plugin_t *app_create(const deck_host_t *host, const char *plugin_id) {
    if (strcmp(plugin_id, app_descriptor.id) != 0) return NULL;
    app_t *app = calloc(1, sizeof *app);
    if (!app) return NULL;
    app->host = host;
    atomic_init(&app->tuned, 0);
    app->plugin.desc = &app_descriptor;
    app->plugin.plugin_data = app;
    app->plugin.init = app_init;
    app->plugin.activate = app_activate;
    app->plugin.deactivate = app_deactivate;
    app->plugin.destroy = app_destroy;
    app->plugin.get_extension = app_get_extension;
    app->plugin.on_callback = app_on_callback;
    return &app->plugin;
}

static bool entry_init(const char *bundle_path) { (void)bundle_path; return true; }
static void entry_deinit(void) {}

static const deck_plugin_entry_t app_entry = {
    .abi = DECK_ABI_VERSION_INIT, .init = entry_init, .deinit = entry_deinit, .create = app_create,
};

DECK_EXPORT const deck_plugin_entry_t *deck_plugin_entry(void) { return &app_entry; }
