import Glibc

/// A minimal C plugin that adopts the id its manifest gives it, so one compiled library serves any
/// number of generated bundles. Built with plain `cc`, like any third-party plugin.
struct BenchPlugin {
    let library: String

    static let source = """
        #define _POSIX_C_SOURCE 200809L
        #include <deck/plugin.h>
        #include <stdlib.h>
        #include <string.h>

        typedef struct { deck_plugin_t plugin; deck_plugin_descriptor_t desc; char *id; } bench_t;

        static deck_status_t ok(const deck_plugin_t *p) { (void)p; return DECK_OK; }
        static void nothing(const deck_plugin_t *p) { (void)p; }
        static void destroy(const deck_plugin_t *p) { bench_t *b = p->plugin_data; free(b->id); free(b); }
        static const deck_plugin_t *create(const deck_host_t *host, const char *id) {
            (void)host;
            bench_t *b = calloc(1, sizeof *b);
            b->id = strdup(id);
            b->desc = (deck_plugin_descriptor_t){ .abi = DECK_ABI_VERSION_INIT, .id = b->id, .name = "Bench", .version = "1.0.0" };
            b->plugin = (deck_plugin_t){ .desc = &b->desc, .plugin_data = b, .init = ok, .activate = ok,
                                         .deactivate = nothing, .destroy = destroy };
            return &b->plugin;
        }
        static bool entry_init(const char *path) { (void)path; return true; }
        static void entry_deinit(void) {}
        static const deck_plugin_entry_t entry = { DECK_ABI_VERSION_INIT, entry_init, entry_deinit, create, {0} };
        const deck_plugin_entry_t *deck_plugin_entry(void) { return &entry; }
        """

    /// Compiles the plugin once into `folder`.
    static func build(in folder: String) throws -> BenchPlugin {
        let sdk = Bench.sdkInclude()
        try TemporaryFolder.write(source, to: folder + "/bench.c")
        let library = folder + "/libbench.so"
        guard TemporaryFolder.shell("cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -I '\(sdk)' -o '\(library)' '\(folder)/bench.c'") == 0 else {
            throw BenchError("cc could not build the bench plugin against \(sdk)")
        }
        return BenchPlugin(library: library)
    }

    /// Writes bundle `number` (id org.deck.bench.pNNN) into `folder`.
    func bundle(number: Int, in folder: String) throws {
        let name = "Bench\(number)"
        let bundle = "\(folder)/\(name).deckplugin"
        mkdir(bundle, 0o755)
        try TemporaryFolder.copyFile(library, to: bundle + "/libbench.so")
        try TemporaryFolder.write("""
            {"id": "org.deck.bench.p\(number)", "name": "\(name)", "version": "1.0.0", "abi": 1,
             "library": "libbench.so", "entitlements": ["audio"]}
            """, to: bundle + "/manifest.json")
    }
}
