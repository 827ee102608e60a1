package sqlite

/*
#include "qeval_sqlite.h"
#include "qeval_hash.h"

extern void *sqlite3_aggregate_context(sqlite3_context *, int);
extern int sqlite3_value_type(sqlite3_value *);
extern sqlite3_int64 sqlite3_value_int64(sqlite3_value *);
extern double sqlite3_value_double(sqlite3_value *);
extern const void *sqlite3_value_blob(sqlite3_value *);
extern void sqlite3_result_text(sqlite3_context *, const char *, int, void (*)(void *));

#define QEVAL_FP_INTEGER 1
#define QEVAL_FP_FLOAT 2
#define QEVAL_FP_TEXT 3
#define QEVAL_FP_BLOB 4
#define QEVAL_FP_TRANSIENT ((void (*)(void *))-1)

// The state of qeval_fingerprint: the row count, two sums of two independent row hashes
// (a bag's fingerprint: the order of the rows does not change it) and a running hash in
// row order (a list's).
typedef struct {
	uint64_t n, sum1, sum2, ord;
} qeval_fp;

static uint64_t qeval_final(uint64_t z) {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

// qeval_fp_step hashes one row, its values tagged by storage class; an integral float is
// hashed as the integer it equals (2.0 and 2 are one value, as the comparison has it).
static void qeval_fp_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	qeval_fp *fp = (qeval_fp *)sqlite3_aggregate_context(ctx, sizeof(qeval_fp));
	if (fp == 0) {
		return;
	}
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < argc; i++) {
		uint64_t tag = (uint64_t)sqlite3_value_type(argv[i]);
		sqlite3_int64 iv;
		double dv;
		switch (tag) {
		case QEVAL_FP_INTEGER:
			iv = sqlite3_value_int64(argv[i]);
			h = qeval_round(qeval_round(h, tag), (uint64_t)iv);
			break;
		case QEVAL_FP_FLOAT:
			dv = sqlite3_value_double(argv[i]);
			if (dv >= -9.2e18 && dv <= 9.2e18 && dv == (double)(sqlite3_int64)dv) {
				iv = (sqlite3_int64)dv;
				h = qeval_round(qeval_round(h, QEVAL_FP_INTEGER), (uint64_t)iv);
			} else {
				uint64_t bits;
				memcpy(&bits, &dv, sizeof bits);
				h = qeval_round(qeval_round(h, tag), bits);
			}
			break;
		case QEVAL_FP_TEXT:
		case QEVAL_FP_BLOB: {
			// the pointer first: sqlite3_value_bytes after it gives the length of the
			// same representation
			const unsigned char *p = (const unsigned char *)sqlite3_value_blob(argv[i]);
			int n = sqlite3_value_bytes(argv[i]);
			h = qeval_round(h, tag | (uint64_t)(uint32_t)n << 8);
			if (p != 0) {
				h = qeval_bytes(h, p, n);
			}
			break;
		}
		default:
			h = qeval_round(h, tag);
		}
	}
	fp->n++;
	fp->sum1 += qeval_final(h);
	fp->sum2 += qeval_final(h ^ 0x9e3779b97f4a7c15ULL);
	fp->ord = qeval_final(fp->ord ^ h) + fp->n;
}

static void qeval_fp_final(sqlite3_context *ctx) {
	qeval_fp *fp = (qeval_fp *)sqlite3_aggregate_context(ctx, 0);
	qeval_fp zero = {0, 0, 0, 0};
	if (fp == 0) {
		fp = &zero;
	}
	static const char hex[] = "0123456789abcdef";
	char out[4 * 17];
	uint64_t parts[4] = {fp->n, fp->sum1, fp->sum2, fp->ord};
	for (int k = 0; k < 4; k++) {
		for (int j = 0; j < 16; j++) {
			out[k * 17 + j] = hex[(parts[k] >> (60 - 4 * j)) & 15];
		}
		out[k * 17 + 16] = k < 3 ? ':' : 0;
	}
	sqlite3_result_text(ctx, out, -1, QEVAL_FP_TRANSIENT);
}

static int qeval_fp_init(sqlite3 *db, char **err, const void *api) {
	return sqlite3_create_function_v2(db, "qeval_fingerprint", -1, QEVAL_SQLITE_UTF8, 0, 0, qeval_fp_step, qeval_fp_final, 0);
}

static int qeval_install_fingerprint(void) {
	return sqlite3_auto_extension((void (*)(void))qeval_fp_init);
}
*/
import "C"

import (
	"context"
	"database/sql/driver"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
)

var fingerprintExt = &autoExtension{name: "qeval_fingerprint", install: func() C.int { return C.qeval_install_fingerprint() }}

// installFingerprint registers qeval_fingerprint on every SQLite connection opened from
// now on.
func installFingerprint() error { return fingerprintExt.load() }

// Fingerprint is a digest of a table's rows, computed in SQLite without fetching them:
// as a bag, or in rowid order when ordered. Two tables with equal digests hold the same
// rows (values compared as stored, an integral float as its integer); the comparison
// reads the rows only of tables whose digests differ.
func (s *Sandbox) Fingerprint(ctx context.Context, table string, columns []string, ordered bool) (string, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Executor == nil {
		return "", 0, errClosed
	}
	cols := make([]string, len(columns))
	for i, c := range columns {
		cols[i] = quoteIdent(c)
	}
	from := quoteIdent(table)
	if ordered {
		from = "(SELECT * FROM " + quoteIdent(table) + " ORDER BY _rowid_)"
	}
	rs, err := s.Executor.Query(ctx, "SELECT qeval_fingerprint("+strings.Join(cols, ", ")+") FROM "+from)
	if err != nil {
		return "", 0, err
	}
	if len(rs.Rows) != 1 || len(rs.Rows[0]) != 1 {
		return "", 0, fmt.Errorf("qeval_fingerprint returned %d rows", len(rs.Rows))
	}
	fp := rs.Rows[0][0].Str
	if !ordered {
		fp = fp[:strings.LastIndexByte(fp, ':')] // the order part
	}
	head, _, _ := strings.Cut(fp, ":")
	n, err := strconv.ParseUint(head, 16, 64)
	return fp, int(n), err
}

// definitionSeed hashes tables' definitions into stored digests (within one process,
// where the digests are compared).
var definitionSeed = maphash.MakeSeed()

// StoredDigest is a digest of a table's rows as the copy stores them, read from its
// memory without running a statement: the rowids and records in rowid order, and the
// table's definition (CREATE TABLE as it is now). Equal digests hold the same rows; digests that differ say nothing (Fingerprint decides). ok
// is false when it cannot be taken: a copy in a file, a transaction open, a table
// without rowids, or a temporary table of that name (which a statement would read).
func (s *Sandbox) StoredDigest(ctx context.Context, table string) (digest string, rows int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Executor == nil || s.file != "" {
		return "", 0, false
	}
	s.ctl(ctx, func(c *conn) error {
		h, err := s.handleOf(ctx, c)
		if err != nil {
			return err
		}
		// the table's definition is part of the digest: the same records read otherwise
		// under another (a column added with another default, a generated column)
		q := "SELECT rootpage, sql, 0 FROM main.sqlite_master WHERE type = 'table' AND name = ?1"
		if !s.mode.pooled || s.mode.tempTouched {
			// (a reused copy knows it made no temporary object: the authorizer saw none)
			q = "SELECT rootpage, sql, EXISTS (SELECT 1 FROM temp.sqlite_master WHERE name = ?1 COLLATE NOCASE) " +
				"FROM main.sqlite_master WHERE type = 'table' AND name = ?1"
		}
		rs, err := c.QueryContext(ctx, q, []driver.NamedValue{{Ordinal: 1, Value: table}})
		if err != nil {
			return err
		}
		v := make([]driver.Value, 3)
		err = rs.Next(v)
		rs.Close()
		if err != nil {
			return err // io.EOF: no such table
		}
		root, _ := v[0].(int64)
		def, _ := v[1].(string)
		if shadowed, _ := v[2].(int64); root <= 0 || def == "" || shadowed != 0 {
			return nil
		}
		if digest, rows, ok = storedDigest(h, root); ok {
			digest += ":" + fmt.Sprintf("%016x", maphash.String(definitionSeed, def))
		}
		return nil
	})
	return digest, rows, ok
}
