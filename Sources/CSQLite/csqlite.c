#include <sqlite3.h>

#include "csqlite.h"

int csqlite_enable_triggers(void *db, int enabled, int *now) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enabled, now);
}

int csqlite_enable_foreign_keys(void *db, int enabled, int *now) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_ENABLE_FKEY, enabled, now);
}

int csqlite_stop_counting_memory(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
