#ifndef CSQLITE_H
#define CSQLITE_H

/// Turns the triggers of the SQLite connection `db` (a `sqlite3 *`) on or off:
/// `sqlite3_db_config(SQLITE_DBCONFIG_ENABLE_TRIGGER)`, which Swift cannot call itself (it takes
/// variable arguments). Returns SQLite's result code.
int csqlite_enable_triggers(void *db, int enabled);

#endif
