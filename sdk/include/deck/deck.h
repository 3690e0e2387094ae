/*
 * deck/deck.h — the whole Deck plugin ABI: the core and every extension.
 */
#ifndef DECK_DECK_H
#define DECK_DECK_H

#include "core.h"
#include "ext/thread-check.h"
#include "ext/audio.h"
#include "ext/session.h"
#include "ext/now-playing.h"
#include "ext/ui.h"
#include "ext/content.h"

#endif /* DECK_DECK_H */
