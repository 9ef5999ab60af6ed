// Batch process control: signal handlers whose state must be async-signal-safe (volatile sig_atomic_t),
// and prctl(PR_SET_PDEATHSIG), which is variadic.
#define _GNU_SOURCE
#include "lw_batch.h"
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static volatile sig_atomic_t last_signal = 0;
static volatile sig_atomic_t signal_count = 0;
static volatile sig_atomic_t wake = -1;
static volatile sig_atomic_t hard_second = 0;

static void on_interrupt(int sig) {
    int saved = errno;
    last_signal = sig;
    signal_count = signal_count + 1;
    if (hard_second && signal_count >= 2) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    if (wake >= 0) {
        char byte = 1;
        ssize_t ignored = write(wake, &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

int lw_batch_interrupts_install(int wake_fd, int hard_stop_on_second) {
    last_signal = 0;
    signal_count = 0;
    wake = wake_fd;
    hard_second = hard_stop_on_second;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &sa, NULL) != 0) return -1;
    if (sigaction(SIGTERM, &sa, NULL) != 0) return -1;
    return 0;
}

void lw_batch_interrupts_restore(void) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    wake = -1;
}

int lw_batch_interrupt_signal(void) { return last_signal; }

int lw_batch_interrupt_count(void) { return signal_count; }

int lw_batch_die_with_parent(pid_t expected_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    return getppid() == expected_parent ? 0 : 1;
}

int lw_batch_pipe(int fds[2], int flags) { return pipe2(fds, flags); }
