/*
 * hello.c — a Deck plugin in plain C, built with nothing but `cc` and sdk/include.
 *
 * It shows the whole lifecycle and the one any-thread host call: on activate it
 * starts a worker thread that asks the host for a callback; the host answers
 * on its loop thread, which the plugin checks through "deck.thread-check".
 */
#include <deck/plugin.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hello {
    deck_plugin_t plugin;
    const deck_host_t *host;
    const deck_host_thread_check_t *thread_check;
    pthread_t worker;
    bool worker_running;
} hello_t;

static const deck_plugin_descriptor_t hello_descriptor = {
    .abi = DECK_ABI_VERSION_INIT,
    .id = "org.example.hello",
    .name = "Hello",
    .version = "1.0.0",
    .vendor = "Example Vendor",
    .description = "A minimal C plugin: lifecycle, logging and a callback from a worker thread",
};

static hello_t *hello_from(const deck_plugin_t *plugin) { return (hello_t *)plugin->plugin_data; }

static void *hello_worker(void *arg) {
    hello_t *hello = arg;
    hello->host->log(hello->host, DECK_LOG_DEBUG, "worker thread asking for a callback");
    if (hello->host->request_callback(hello->host) != DECK_OK) {
        hello->host->log(hello->host, DECK_LOG_ERROR, hello->host->last_error(hello->host));
    }
    return NULL;
}

static deck_status_t hello_init(const deck_plugin_t *plugin) {
    hello_t *hello = hello_from(plugin);
    hello->thread_check = hello->host->get_extension(hello->host, DECK_EXT_THREAD_CHECK);
    char line[160];
    snprintf(line, sizeof line, "hello from C on %s %s; audio entitlement: %s", hello->host->name,
             hello->host->version, hello->host->has_entitlement(hello->host, "audio") ? "yes" : "no");
    hello->host->log(hello->host, DECK_LOG_INFO, line);
    return DECK_OK;
}

static deck_status_t hello_activate(const deck_plugin_t *plugin) {
    hello_t *hello = hello_from(plugin);
    if (pthread_create(&hello->worker, NULL, hello_worker, hello) != 0) {
        hello->host->log(hello->host, DECK_LOG_ERROR, "cannot start the worker thread");
        return DECK_E_INTERNAL;
    }
    hello->worker_running = true;
    return DECK_OK;
}

static void hello_deactivate(const deck_plugin_t *plugin) {
    hello_t *hello = hello_from(plugin);
    if (hello->worker_running) {
        pthread_join(hello->worker, NULL);
        hello->worker_running = false;
    }
    hello->host->log(hello->host, DECK_LOG_INFO, "deactivated");
}

static void hello_destroy(const deck_plugin_t *plugin) {
    hello_t *hello = hello_from(plugin);
    free(hello);
}

static const void *hello_get_extension(const deck_plugin_t *plugin, const char *id) {
    (void)plugin;
    (void)id;
    return NULL;
}

static void hello_on_callback(const deck_plugin_t *plugin) {
    hello_t *hello = hello_from(plugin);
    bool on_loop = hello->thread_check && hello->thread_check->is_loop_thread(hello->host);
    hello->host->log(hello->host, DECK_LOG_INFO,
                     on_loop ? "callback delivered on the loop thread" : "callback delivered off the loop thread");
}

static const deck_plugin_t *hello_create(const deck_host_t *host, const char *plugin_id) {
    if (strcmp(plugin_id, hello_descriptor.id) != 0) return NULL;
    hello_t *hello = calloc(1, sizeof *hello);
    if (!hello) return NULL;
    hello->host = host;
    hello->plugin.desc = &hello_descriptor;
    hello->plugin.plugin_data = hello;
    hello->plugin.init = hello_init;
    hello->plugin.activate = hello_activate;
    hello->plugin.deactivate = hello_deactivate;
    hello->plugin.destroy = hello_destroy;
    hello->plugin.get_extension = hello_get_extension;
    hello->plugin.on_callback = hello_on_callback;
    return &hello->plugin;
}

static bool hello_entry_init(const char *bundle_path) {
    (void)bundle_path;
    return true;
}

static void hello_entry_deinit(void) {}

static const deck_plugin_entry_t hello_entry = {
    .abi = DECK_ABI_VERSION_INIT,
    .init = hello_entry_init,
    .deinit = hello_entry_deinit,
    .create = hello_create,
};

const deck_plugin_entry_t *deck_plugin_entry(void) { return &hello_entry; }
