#ifndef LW_WATCH_H
#define LW_WATCH_H

/// Installs a SIGHUP handler (the folder watch's "reload the recipe") that only counts the signal
/// (async-signal-safe state Swift cannot express) and writes one byte to `wake_fd` (a pipe the watch loop
/// polls; -1 for none). Returns 0, or -1 when sigaction fails.
int lw_watch_hangup_install(int wake_fd);
/// Restores the default action for SIGHUP.
void lw_watch_hangup_restore(void);
/// How many SIGHUPs arrived since install (the loop compares it with the count it has acted on).
int lw_watch_hangup_count(void);

#endif
