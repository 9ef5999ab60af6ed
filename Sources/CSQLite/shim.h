#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro Swift cannot import: sqlite3_bind_text copies the bytes with it. */
static inline sqlite3_destructor_type lw_sqlite_transient(void) { return SQLITE_TRANSIENT; }
