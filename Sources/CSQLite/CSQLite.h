#include <sqlite3.h>

// sqlite3_db_config is variadic, so Swift cannot call it: one entry point per option we use.
static inline int csqlite_set_defensive(sqlite3 *db, int enabled) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, enabled, (int *)0);
}

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
