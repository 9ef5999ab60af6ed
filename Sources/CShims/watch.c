// Folder watch: the SIGHUP handler, whose state must be async-signal-safe (volatile sig_atomic_t).
#include "lw_watch.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t hangups = 0;
static volatile sig_atomic_t hangup_wake = -1;

static void on_hangup(int sig) {
    (void)sig;
    int saved = errno;
    hangups = hangups + 1;
    if (hangup_wake >= 0) {
        char byte = 1;
        ssize_t ignored = write(hangup_wake, &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

int lw_watch_hangup_install(int wake_fd) {
    hangups = 0;
    hangup_wake = wake_fd;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_hangup;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    return sigaction(SIGHUP, &sa, NULL) == 0 ? 0 : -1;
}

void lw_watch_hangup_restore(void) {
    signal(SIGHUP, SIG_DFL);
    hangup_wake = -1;
}

int lw_watch_hangup_count(void) { return hangups; }
