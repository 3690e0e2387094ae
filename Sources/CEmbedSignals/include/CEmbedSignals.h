/* libdeck's load-time hook; it exports nothing. See SwiftCrashHandlers.c. */
#ifndef DECK_EMBED_SIGNALS_H
#define DECK_EMBED_SIGNALS_H
#endif
