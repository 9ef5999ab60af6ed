#ifndef LW_BATCH_H
#define LW_BATCH_H
#include <sys/types.h>

/// Installs SIGINT and SIGTERM handlers that only record the signal (async-signal-safe state Swift cannot
/// express) and write one byte to `wake_fd` (a pipe the batch loop polls; -1 for none). With
/// `hard_stop_on_second` a second signal restores the default action and re-raises it (ends the process).
int lw_batch_interrupts_install(int wake_fd, int hard_stop_on_second);
/// Restores the default actions for SIGINT and SIGTERM.
void lw_batch_interrupts_restore(void);
/// The last SIGINT/SIGTERM received since install (0 for none).
int lw_batch_interrupt_signal(void);
/// How many SIGINT/SIGTERM arrived since install.
int lw_batch_interrupt_count(void);
/// pipe2(2) (a _GNU_SOURCE declaration Swift does not see): `flags` O_CLOEXEC and/or O_NONBLOCK.
int lw_batch_pipe(int fds[2], int flags);
/// Worker side: asks the kernel to SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG is
/// variadic). Returns 0, 1 when the parent is already gone (getppid() != expected_parent), -1 on error.
int lw_batch_die_with_parent(pid_t expected_parent);

#endif
