// The parts of SQLite's C API that qeval's own SQL functions (fingerprint.go, memcap.go,
// steps.go, copyimage.go) share, declared once: the driver links SQLite but does not put
// its header on the include path.
#include <stdint.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;
typedef int64_t sqlite3_int64;

extern int sqlite3_auto_extension(void (*)(void));
extern int sqlite3_create_function_v2(sqlite3 *, const char *, int, int, void *,
	void (*)(sqlite3_context *, int, sqlite3_value **),
	void (*)(sqlite3_context *, int, sqlite3_value **),
	void (*)(sqlite3_context *), void (*)(void *));
extern sqlite3 *sqlite3_context_db_handle(sqlite3_context *);
extern int sqlite3_value_bytes(sqlite3_value *);
extern void sqlite3_result_int64(sqlite3_context *, sqlite3_int64);

#define QEVAL_SQLITE_UTF8 1
