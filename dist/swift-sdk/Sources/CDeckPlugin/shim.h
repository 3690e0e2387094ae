/* The plugin ABI, from the include folder pkg-config names (deck-plugin.pc). */
#include <deck/deck.h>
