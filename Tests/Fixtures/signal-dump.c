/* Prints every signal's disposition (handler or SIG_DFL/SIG_IGN, and flags) at main, so the same
 * program built with and without libdeck linked in can be compared. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>

int main(void) {
    for (int number = 1; number < NSIG; number++) {
        struct sigaction action;
        if (sigaction(number, NULL, &action) != 0) continue;
        const char *kind = action.sa_handler == SIG_DFL ? "default" : action.sa_handler == SIG_IGN ? "ignored" : "handled";
        printf("%d %s %x\n", number, kind, (unsigned)action.sa_flags);
    }
    return 0;
}
