/*
 * A plugin with a UI, for the template and content tree tests, built with plain cc against
 * sdk/include only. When the display attaches it sets a tab bar of two lists as its root
 * (unless UI_NO_ROOT); selecting "fm4" pushes a detail list, "oe1" presents an alert (either
 * action dismisses it), "p1" pushes a now-playing template and "p2" a grid; "slow" is never completed (the
 * host's timeout must); every other selection is completed at once. Its content tree has two
 * three tabs: "Radio" (three playable stations, read at once), "Podcasts" (loaded lazily: its
 * children appear after begin_loading, completed on the next callback; never with
 * UI_SLOW_LOAD) and "Deep" (a container in a container, without end). It logs what it is told
 * ("display: 1", "select: fm4", "limits: …", "play: 0/1"). With UI_HUGE_IMAGE it also adds a
 * 2 MiB image when the display attaches and logs the answer ("image: STATUS LAST_ERROR").
 * UI_SYNC_LOAD=STATUS completes every load and play inside begin_loading and play with STATUS
 * (DECK_OK also makes Podcasts' children appear first); UI_SYNC_SELECT completes "slow" inside
 * select too. UI_BAD_ITEM gives station "0/1" a title that is not UTF-8 (it cannot be shown).
 * UI_IMAGE_PROBE adds a small image when the display attaches and logs "reentered: CALL PATH" if
 * the host calls a content function while that add_image call runs. UI_IMAGE_CYCLE, when the
 * display attaches, adds a small image twice, removes it twice and removes id 2^64-1, and logs
 * the five statuses and the last error ("images: A B R1 R2 R3 id=ID|ID2 LAST_ERROR").
 * UI_IMAGE_LEAK adds an image of new bytes each time the display attaches and never removes one.
 */
#define _DEFAULT_SOURCE
#include <deck/deck.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ui_fixture {
    deck_plugin_t plugin;
    const deck_host_t *host;
    int podcasts_loaded;
    uint64_t load_token;
    int in_host_call;
} ui_fixture_t;

static void say(const ui_fixture_t *f, const char *what, const char *detail);

/* Logs a content call the host made from inside one of the plugin's own host calls. */
static void probe(const ui_fixture_t *f, const char *call, const char *path) {
    if (!f->in_host_call) return;
    char detail[200];
    snprintf(detail, sizeof detail, "%s %s", call, path);
    say(f, "reentered", detail);
}

static void say(const ui_fixture_t *f, const char *what, const char *detail) {
    char line[512];
    snprintf(line, sizeof line, "%s: %s", what, detail);
    f->host->log(f->host, DECK_LOG_INFO, line);
}

static const deck_host_ui_t *ui_of(const ui_fixture_t *f) { return f->host->get_extension(f->host, DECK_EXT_UI); }

static const char root_json[] =
    "{\"type\": \"tabBar\", \"tabs\": ["
    " {\"type\": \"list\", \"key\": \"stations\", \"title\": \"Stations\", \"sections\": ["
    "  {\"header\": \"Favourites\", \"items\": ["
    "   {\"key\": \"fm4\", \"text\": \"FM4\", \"detail\": \"Alternative\", \"accessory\": \"disclosure\"},"
    "   {\"key\": \"oe1\", \"text\": \"Oe1\", \"detail\": \"Culture\"},"
    "   {\"key\": \"slow\", \"text\": \"Slow station\"}]}]},"
    " {\"type\": \"list\", \"key\": \"podcasts\", \"title\": \"Podcasts\", \"items\": ["
    "   {\"key\": \"p1\", \"text\": \"Episode 1\"}, {\"key\": \"p2\", \"text\": \"Episode 2\"}]}]}";

static const char detail_json[] =
    "{\"type\": \"list\", \"title\": \"FM4\", \"items\": ["
    " {\"key\": \"play\", \"text\": \"Play\"},"
    " {\"text\": \"Now: Morning Show\", \"detail\": \"until 10:00\"}]}";

/* Templates the simulator draws: an alert, a now-playing screen and a grid. */
static const char alert_json[] =
    "{\"type\": \"alert\", \"title\": \"Oe1\", \"message\": \"Tune in now?\", \"actions\": ["
    " {\"key\": \"tune\", \"text\": \"Tune in\"}, {\"key\": \"later\", \"text\": \"Later\"}]}";
static const char now_playing_json[] = "{\"type\": \"nowPlaying\", \"buttons\": [{\"key\": \"like\", \"text\": \"Like\"}]}";
static const char grid_json[] =
    "{\"type\": \"grid\", \"title\": \"Genres\", \"buttons\": ["
    " {\"key\": \"jazz\", \"text\": \"Jazz\"}, {\"key\": \"rock\", \"text\": \"Rock\"}, {\"key\": \"news\", \"text\": \"News\"}]}";

static void ui_display_changed(const deck_plugin_t *plugin, bool attached, const char *profile) {
    ui_fixture_t *f = plugin->plugin_data;
    (void)profile;
    say(f, "display", attached ? "1" : "0");
#ifdef UI_HUGE_IMAGE
    if (attached) {
        size_t size = 2u << 20;
        unsigned char *bytes = calloc(1, size);
        uint64_t image = 0;
        deck_status_t status = ui_of(f)->add_image(f->host, bytes, size, &image);
        free(bytes);
        char detail[400];
        snprintf(detail, sizeof detail, "%d %s", status, f->host->last_error(f->host));
        say(f, "image", detail);
    }
#endif
#ifdef UI_IMAGE_PROBE
    if (attached) {
        static const unsigned char png[] = { 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0 };
        uint64_t image = 0;
        f->in_host_call = 1;
        deck_status_t status = ui_of(f)->add_image(f->host, png, sizeof png, &image);
        f->in_host_call = 0;
        char detail[64];
        snprintf(detail, sizeof detail, "%d", status);
        say(f, "image", detail);
    }
#endif
#ifdef UI_IMAGE_CYCLE
    if (attached) {
        static const unsigned char png[] = { 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4 };
        uint64_t first = 0, second = 0;
        deck_status_t added = ui_of(f)->add_image(f->host, png, sizeof png, &first);
        deck_status_t again = ui_of(f)->add_image(f->host, png, sizeof png, &second);
        deck_status_t removed = ui_of(f)->remove_image(f->host, first);
        deck_status_t twice = ui_of(f)->remove_image(f->host, first);
        deck_status_t huge = ui_of(f)->remove_image(f->host, UINT64_MAX);
        char detail[400];
        snprintf(detail, sizeof detail, "%d %d %d %d %d id=%llu|%llu %s", added, again, removed, twice, huge,
                 (unsigned long long)first, (unsigned long long)second, f->host->last_error(f->host));
        say(f, "images", detail);
    }
#endif
#ifdef UI_IMAGE_LEAK
    if (attached) {
        static unsigned char png[] = { 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0 };
        uint64_t image = 0;
        png[8]++;
        ui_of(f)->add_image(f->host, png, sizeof png, &image);
    }
#endif
#ifndef UI_NO_ROOT
    if (attached) {
        uint64_t id = 0;
        uint32_t dropped = 0;
        deck_status_t status = ui_of(f)->set_root(f->host, root_json, &id, &dropped);
        char detail[64];
        snprintf(detail, sizeof detail, "%d id=%llu dropped=%u", status, (unsigned long long)id, dropped);
        say(f, "set_root", detail);
    }
#endif
}

static void ui_select(const deck_plugin_t *plugin, uint64_t template_id, const char *key, uint64_t token) {
    ui_fixture_t *f = plugin->plugin_data;
    (void)template_id;
    say(f, "select", key);
#ifndef UI_SYNC_SELECT
    if (strcmp(key, "slow") == 0) return;
#endif
    if (strcmp(key, "fm4") == 0) ui_of(f)->push(f->host, detail_json, NULL, NULL);
    if (strcmp(key, "oe1") == 0) ui_of(f)->present(f->host, alert_json, NULL);
    if (strcmp(key, "tune") == 0 || strcmp(key, "later") == 0) ui_of(f)->dismiss(f->host);
    if (strcmp(key, "p1") == 0) ui_of(f)->push(f->host, now_playing_json, NULL, NULL);
    if (strcmp(key, "p2") == 0) ui_of(f)->push(f->host, grid_json, NULL, NULL);
    ui_of(f)->complete(f->host, token);
}

static void ui_limits_changed(const deck_plugin_t *plugin, const char *limits) {
    say(plugin->plugin_data, "limits", limits);
}

static const deck_plugin_ui_t fixture_ui = {
    .display_changed = ui_display_changed,
    .select = ui_select,
    .limits_changed = ui_limits_changed,
};

static const char *const stations[] = {"FM4", "Oe1", "Oe3"};
static const char *const episodes[] = {"Episode 1", "Episode 2"};

static int32_t content_child_count(const deck_plugin_t *plugin, const char *path) {
    ui_fixture_t *f = plugin->plugin_data;
    probe(f, "child_count", path);
    if (strcmp(path, "") == 0) return 3;
    if (strcmp(path, "0") == 0) return 3;
    if (strcmp(path, "1") == 0) return f->podcasts_loaded ? 2 : -1;
    if (path[0] == '2') return 1;
    return 0;
}

static deck_status_t content_item(const deck_plugin_t *plugin, const char *path, deck_content_item_t *item) {
    probe(plugin->plugin_data, "item", path);
    int top = -1, child = -1;
    if (path[0] == '2') {
        item->id = path;
        item->title = strchr(path, '/') ? "Level" : "Deep";
        item->container = true;
        return DECK_OK;
    }
    if (sscanf(path, "%d/%d", &top, &child) == 2) {
        if (top == 0 && child >= 0 && child < 3) {
            item->id = stations[child];
            item->title = stations[child];
#ifdef UI_BAD_ITEM
            if (child == 1) item->title = "\xc3\x28";
#endif
            item->playable = true;
            item->streaming = true;
            return DECK_OK;
        }
        if (top == 1 && child >= 0 && child < 2) {
            item->id = episodes[child];
            item->title = episodes[child];
            item->subtitle = "Podcast";
            item->playable = true;
            return DECK_OK;
        }
        return DECK_E_INVALID;
    }
    if (top == 0 || top == 1) {
        item->id = top == 0 ? "radio" : "podcasts";
        item->title = top == 0 ? "Radio" : "Podcasts";
        item->container = true;
        return DECK_OK;
    }
    return DECK_E_INVALID;
}

static void content_begin_loading(const deck_plugin_t *plugin, const char *path, uint64_t token) {
    ui_fixture_t *f = plugin->plugin_data;
    probe(f, "begin_loading", path);
    say(f, "load", path);
#ifdef UI_SYNC_LOAD
    if (UI_SYNC_LOAD == DECK_OK) f->podcasts_loaded = 1;
    ((const deck_host_content_t *)f->host->get_extension(f->host, DECK_EXT_CONTENT))->complete(f->host, token, UI_SYNC_LOAD);
    return;
#endif
    f->load_token = token;
#ifndef UI_SLOW_LOAD
    f->host->request_callback(f->host);
#endif
}

static void content_play(const deck_plugin_t *plugin, const char *path, uint64_t token) {
    ui_fixture_t *f = plugin->plugin_data;
    say(f, "play", path);
    const deck_host_content_t *content = f->host->get_extension(f->host, DECK_EXT_CONTENT);
#ifdef UI_SYNC_LOAD
    content->complete(f->host, token, UI_SYNC_LOAD);
#else
    content->complete(f->host, token, DECK_OK);
#endif
}

static const deck_plugin_content_t fixture_content = {
    .child_count = content_child_count,
    .item = content_item,
    .begin_loading = content_begin_loading,
    .play = content_play,
};

static const void *ui_get_extension(const deck_plugin_t *plugin, const char *id) {
    (void)plugin;
    if (strcmp(id, DECK_EXT_UI) == 0) return &fixture_ui;
    if (strcmp(id, DECK_EXT_CONTENT) == 0) return &fixture_content;
    return NULL;
}

static void ui_on_callback(const deck_plugin_t *plugin) {
    ui_fixture_t *f = plugin->plugin_data;
    if (f->load_token == 0) return;
    f->podcasts_loaded = 1;
    const deck_host_content_t *content = f->host->get_extension(f->host, DECK_EXT_CONTENT);
    content->complete(f->host, f->load_token, DECK_OK);
    content->reload(f->host);
    f->load_token = 0;
}

#ifndef UI_ID
#define UI_ID "org.deck.test.ui"
#endif

static const deck_plugin_descriptor_t ui_descriptor = {
    .abi = DECK_ABI_VERSION_INIT,
    .id = UI_ID,
    .name = "UI fixture",
    .version = "1.0.0",
};

static deck_status_t ui_init(const deck_plugin_t *plugin) { (void)plugin; return DECK_OK; }
static deck_status_t ui_activate(const deck_plugin_t *plugin) { (void)plugin; return DECK_OK; }
static void ui_deactivate(const deck_plugin_t *plugin) { (void)plugin; }
static void ui_destroy(const deck_plugin_t *plugin) { free(plugin->plugin_data); }

static const deck_plugin_t *ui_create(const deck_host_t *host, const char *plugin_id) {
    (void)plugin_id;
    ui_fixture_t *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->host = host;
    f->plugin.desc = &ui_descriptor;
    f->plugin.plugin_data = f;
    f->plugin.init = ui_init;
    f->plugin.activate = ui_activate;
    f->plugin.deactivate = ui_deactivate;
    f->plugin.destroy = ui_destroy;
    f->plugin.get_extension = ui_get_extension;
    f->plugin.on_callback = ui_on_callback;
    return &f->plugin;
}

static bool ui_entry_init(const char *bundle_path) { (void)bundle_path; return true; }
static void ui_entry_deinit(void) {}

static const deck_plugin_entry_t ui_entry = {
    .abi = DECK_ABI_VERSION_INIT,
    .init = ui_entry_init,
    .deinit = ui_entry_deinit,
    .create = ui_create,
};

DECK_EXPORT const deck_plugin_entry_t *deck_plugin_entry(void) { return &ui_entry; }
