package sqlite

/*
#include "qeval_sqlite.h"
#include <stdlib.h>

// The entry points of SQLite's public C API this file uses besides qeval_sqlite.h's.
typedef struct sqlite3_stmt sqlite3_stmt;

extern const unsigned char *sqlite3_value_text(sqlite3_value *);
extern int sqlite3_prepare_v2(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
extern int sqlite3_step(sqlite3_stmt *);
extern int sqlite3_stmt_status(sqlite3_stmt *, int, int);
extern int sqlite3_finalize(sqlite3_stmt *);
extern const char *sqlite3_errmsg(sqlite3 *);
extern int sqlite3_extended_errcode(sqlite3 *);
extern void sqlite3_result_error(sqlite3_context *, const char *, int);
extern void sqlite3_result_error_code(sqlite3_context *, int);

#define QEVAL_SQLITE_OK 0
#define QEVAL_SQLITE_ERROR 1
#define QEVAL_SQLITE_ROW 100
#define QEVAL_SQLITE_DONE 101
#define QEVAL_STMTSTATUS_VM_STEP 4

// qeval_vm_steps(sql) prepares sql on the calling connection (so the connection's
// authorizer, interrupt and memory cap apply), steps it to completion discarding the
// rows, and returns its virtual-machine step count.
static void qeval_vm_steps(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	const char *sql = (const char *)sqlite3_value_text(argv[0]);
	int n = sqlite3_value_bytes(argv[0]);
	sqlite3_stmt *stmt = 0;
	const char *tail = 0;
	if (sql == 0) {
		sqlite3_result_error(ctx, "qeval_vm_steps: no query", -1);
		return;
	}
	int rc = sqlite3_prepare_v2(db, sql, n, &stmt, &tail);
	if (rc != QEVAL_SQLITE_OK || stmt == 0) {
		sqlite3_result_error(ctx, stmt == 0 && rc == QEVAL_SQLITE_OK ? "empty query" : sqlite3_errmsg(db), -1);
		sqlite3_result_error_code(ctx, rc == QEVAL_SQLITE_OK ? QEVAL_SQLITE_ERROR : sqlite3_extended_errcode(db));
		sqlite3_finalize(stmt);
		return;
	}
	while ((rc = sqlite3_step(stmt)) == QEVAL_SQLITE_ROW) {
	}
	if (rc != QEVAL_SQLITE_DONE) {
		sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
		sqlite3_result_error_code(ctx, sqlite3_extended_errcode(db));
		sqlite3_finalize(stmt);
		return;
	}
	sqlite3_int64 steps = sqlite3_stmt_status(stmt, QEVAL_STMTSTATUS_VM_STEP, 0);
	sqlite3_finalize(stmt);
	sqlite3_result_int64(ctx, steps);
}

static int qeval_vm_steps_init(sqlite3 *db, char **err, const void *api) {
	return sqlite3_create_function_v2(db, "qeval_vm_steps", 1, QEVAL_SQLITE_UTF8, 0,
		qeval_vm_steps, 0, 0, 0);
}

static int qeval_install_vm_steps(void) {
	return sqlite3_auto_extension((void (*)(void))qeval_vm_steps_init);
}
*/
import "C"

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"sync"

	"github.com/qeval/qeval"
)

// vmStepsFunc is the SQL function that counts a query's VM steps. The authorizer lets
// it run only when the executor itself calls it (see VMSteps): a generated query may
// not call it.
const vmStepsFunc = "qeval_vm_steps"

// autoExtension is one of qeval's SQL functions, registered on every SQLite connection
// the program opens from the first load on, through SQLite's auto-extension mechanism
// (sqlite3_auto_extension): the one public way to reach a connection's C handle, which
// the driver keeps to itself.
type autoExtension struct {
	name    string
	install func() C.int // the C function that calls sqlite3_auto_extension
	once    sync.Once
	err     error
}

// load registers the function once; later calls return the first one's error.
func (a *autoExtension) load() error {
	a.once.Do(func() {
		if rc := a.install(); rc != 0 {
			a.err = fmt.Errorf("install %s: sqlite error %d", a.name, int(rc))
		}
	})
	return a.err
}

var vmStepsExt = &autoExtension{name: vmStepsFunc, install: func() C.int { return C.qeval_install_vm_steps() }}

// installVMSteps registers qeval_vm_steps on every SQLite connection opened from now on.
func installVMSteps() error { return vmStepsExt.load() }

// VMSteps runs query to completion, discarding its rows, and returns the number of
// virtual-machine steps SQLite took (sqlite3_stmt_status with
// SQLITE_STMTSTATUS_VM_STEP): a cost that depends only on the query, the database and
// the SQLite version, identical on every run and machine. The query runs in the same
// sandbox and under the same limits as Query.
func (e *Executor) VMSteps(ctx context.Context, query string) (int64, error) {
	stmt, err := single(query)
	if err != nil {
		return 0, err
	}
	if err := installVMSteps(); err != nil {
		return 0, &qeval.Error{Code: qeval.CodeInternal, Message: err.Error(), Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, e.limits.Timeout)
	defer cancel()
	var steps int64
	err = e.raw(ctx, stmt, func(c *conn) error {
		c.stmt = stmt
		c.stepsArmed = true
		defer func() { c.stepsArmed = false }()
		rows, err := c.QueryContext(ctx, "SELECT "+vmStepsFunc+"(?)", []driver.NamedValue{{Ordinal: 1, Value: stmt}})
		if err != nil {
			return c.explain(err)
		}
		defer rows.Close()
		dest := make([]driver.Value, 1)
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				return &qeval.Error{Code: qeval.CodeInternal, Message: vmStepsFunc + " returned no row"}
			}
			return c.explain(err)
		}
		n, ok := dest[0].(int64)
		if !ok {
			return &qeval.Error{Code: qeval.CodeInternal, Message: fmt.Sprintf("%s returned %T", vmStepsFunc, dest[0])}
		}
		steps = n
		return nil
	})
	if err != nil {
		return 0, e.classify(ctx, err)
	}
	return steps, nil
}
