#include <sqlite3.h>

// Turns off SQLite's memory statistics before the first connection (sqlite3_config is variadic: Swift cannot call
// it). sshelf never reads them, and keeping them takes a global mutex around every allocation SQLite makes — on
// both cores at once during an import. Returns SQLITE_MISUSE when SQLite is already initialized (harmless).
static inline int sshelf_sqlite_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
