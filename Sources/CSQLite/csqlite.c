#include <sqlite3.h>

#include "csqlite.h"

int csqlite_enable_triggers(void *db, int enabled) {
    int now = 0;
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enabled, &now);
}
