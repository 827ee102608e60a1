package sqlite

/*
#include "qeval_sqlite.h"

// The entry points of SQLite's public C API this file uses besides qeval_sqlite.h's.
extern void sqlite3_progress_handler(sqlite3 *, int, int (*)(void *), void *);
extern sqlite3_int64 sqlite3_memory_used(void);

// How many virtual-machine instructions run between two looks at the memory: one look
// costs a mutex and a read; a single instruction allocates at most one value, which
// SQLITE_LIMIT_LENGTH bounds.
#define QEVAL_MEMORY_CHECK_OPS 100

static sqlite3_int64 qeval_memory_cap = 0;

static void qeval_set_memory_cap(sqlite3_int64 n) {
	__atomic_store_n(&qeval_memory_cap, n, __ATOMIC_RELAXED);
}

// qeval_memory_check is the progress handler of a sandboxed connection: it interrupts
// the statement once SQLite's heap is over the cap.
static int qeval_memory_check(void *unused) {
	sqlite3_int64 cap = __atomic_load_n(&qeval_memory_cap, __ATOMIC_RELAXED);
	return cap > 0 && sqlite3_memory_used() > cap;
}

// qeval_sandbox_memory() installs qeval_memory_check on the calling connection.
static void qeval_sandbox_memory(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	sqlite3_progress_handler(sqlite3_context_db_handle(ctx), QEVAL_MEMORY_CHECK_OPS, qeval_memory_check, 0);
	sqlite3_result_int64(ctx, 1);
}

static int qeval_sandbox_memory_init(sqlite3 *db, char **err, const void *api) {
	return sqlite3_create_function_v2(db, "qeval_sandbox_memory", 0, QEVAL_SQLITE_UTF8, 0,
		qeval_sandbox_memory, 0, 0, 0);
}

static int qeval_install_sandbox_memory(void) {
	return sqlite3_auto_extension((void (*)(void))qeval_sandbox_memory_init);
}
*/
import "C"

import (
	"sync"
)

// The memory cap of generated queries. SQLite's own heap limit (PRAGMA hard_heap_limit)
// is process-wide: it made every SQLite allocation of the program fail past it, the
// server's run store included, which lost a 50,000-case report to "out of memory"
// (issue 39). SQLite keeps no account of memory per connection, so the cap is watched
// on the sandboxed connections alone: a progress handler, installed on each of them and
// on no other, interrupts its statement once SQLite's heap is over the cap (the largest
// Limits.MaxBytes asked for), and the statement fails as too large. qeval's own
// connections (the run store, the judge cache, the copies it writes) never have an
// allocation refused. Each value is bounded besides (SQLITE_LIMIT_LENGTH), and so is
// what one instruction can allocate between two looks.

// memoryFunc installs the watch on the connection that calls it; generated queries may
// not call it (see the authorizer).
const memoryFunc = "qeval_sandbox_memory"

var memoryExt = &autoExtension{name: memoryFunc, install: func() C.int { return C.qeval_install_sandbox_memory() }}

// installMemoryCap registers qeval_sandbox_memory on every SQLite connection opened from
// now on.
func installMemoryCap() error { return memoryExt.load() }

var capMu sync.Mutex
var memoryCap int64

// setMemoryCap raises the cap of generated queries to n when it is lower: SQLite's heap
// is one for the program, so the largest MaxBytes asked for wins, and one executor
// cannot starve another.
func setMemoryCap(n int64) {
	capMu.Lock()
	defer capMu.Unlock()
	if n > memoryCap {
		memoryCap = n
		C.qeval_set_memory_cap(C.sqlite3_int64(n))
	}
}
