/*
 * deck/plugin.h — the Deck plugin ABI's core (deck/core.h) with the extensions
 * of ABI 1.0: thread-check, audio and session, as sources written against 1.0
 * include it; they still build unchanged. New code includes deck/core.h and
 * what it uses from deck/ext/, or deck/deck.h for everything. No Deck header
 * includes this one, so none includes itself back.
 */
#ifndef DECK_PLUGIN_H
#define DECK_PLUGIN_H

#include "core.h"
#include "ext/thread-check.h"
#include "ext/audio.h"
#include "ext/session.h"

#endif /* DECK_PLUGIN_H */
