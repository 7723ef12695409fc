#ifndef CSQLITE_H
#define CSQLITE_H

/// The calls of SQLite that take variable arguments, which Swift cannot make itself.

/// Turns the triggers of the SQLite connection `db` (a `sqlite3 *`) on (1) or off (0), or
/// leaves them (-1); `*now` receives whether they are on after the call. `sqlite3_db_config`
/// (`SQLITE_DBCONFIG_ENABLE_TRIGGER`). Returns SQLite's result code.
int csqlite_enable_triggers(void *db, int enabled, int *now);

/// The same for the enforcement of foreign keys (`SQLITE_DBCONFIG_ENABLE_FKEY`, what
/// `PRAGMA foreign_keys` sets, but also inside a transaction).
int csqlite_enable_foreign_keys(void *db, int enabled, int *now);

/// Stops SQLite counting the memory it allocates, process-wide (`sqlite3_config`
/// `SQLITE_CONFIG_MEMSTATUS`): each of its allocations and frees otherwise takes a global
/// mutex. Only before SQLite is first used in the process, from one thread; returns
/// SQLITE_MISUSE (and changes nothing) after.
int csqlite_stop_counting_memory(void);

#endif
