#ifndef LOGBOOK_CSQLITE_SHIM_H
#define LOGBOOK_CSQLITE_SHIM_H
// The system SQLite (Debian: libsqlite3-dev), used only by `logbook bench` as the baseline a
// user would otherwise pick. No core target links it.
#include <sqlite3.h>
#endif
