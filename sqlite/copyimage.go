package sqlite

/*
#include "qeval_sqlite.h"
#include "qeval_hash.h"

typedef uint64_t sqlite3_uint64;

extern void *sqlite3_malloc64(sqlite3_uint64);
extern int sqlite3_deserialize(sqlite3 *, const char *, unsigned char *, sqlite3_int64, sqlite3_int64, unsigned);
extern unsigned char *sqlite3_serialize(sqlite3 *, const char *, sqlite3_int64 *, unsigned);
extern void sqlite3_set_last_insert_rowid(sqlite3 *, sqlite3_int64);
extern int sqlite3_get_autocommit(sqlite3 *);

#define QEVAL_CI_DESERIALIZE_FREEONCLOSE 1
#define QEVAL_CI_DESERIALIZE_RESIZEABLE 2
#define QEVAL_CI_SERIALIZE_NOCOPY 1

// qeval_sandbox_handle() is the calling connection's handle, for the Go side to reach
// the C API of its own sandbox connections (the authorizer refuses it to statements).
static void qeval_sandbox_handle(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	sqlite3_result_int64(ctx, (sqlite3_int64)(intptr_t)sqlite3_context_db_handle(ctx));
}

static int qeval_handle_init(sqlite3 *db, char **err, const void *api) {
	return sqlite3_create_function_v2(db, "qeval_sandbox_handle", 0, QEVAL_SQLITE_UTF8, 0, qeval_sandbox_handle, 0, 0, 0);
}

static int qeval_install_handle(void) {
	return sqlite3_auto_extension((void (*)(void))qeval_handle_init);
}

// qeval_load_image makes the connection's main database an in-memory copy of the n
// bytes of image (SQLite owns the copy and may grow it), and forgets the last rowid
// inserted: what a new connection to a new copy would have.
static int qeval_load_image(sqlite3_int64 h, const void *image, sqlite3_int64 n) {
	sqlite3 *db = (sqlite3 *)(intptr_t)h;
	unsigned char *buf = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)n);
	if (buf == 0) {
		return 7; // SQLITE_NOMEM
	}
	memcpy(buf, image, (size_t)n);
	int rc = sqlite3_deserialize(db, "main", buf, n, n,
		QEVAL_CI_DESERIALIZE_FREEONCLOSE | QEVAL_CI_DESERIALIZE_RESIZEABLE);
	if (rc == 0) {
		sqlite3_set_last_insert_rowid(db, 0);
	}
	return rc;
}

static int qeval_autocommit(sqlite3_int64 h) {
	return sqlite3_get_autocommit((sqlite3 *)(intptr_t)h);
}

static uint64_t qeval_get(const unsigned char *p, int n) {
	uint64_t v = 0;
	for (int i = 0; i < n; i++) {
		v = v << 8 | p[i];
	}
	return v;
}

// qeval_varint reads a SQLite varint at p (at most end); 0 when it does not fit.
static int qeval_varint(const unsigned char *p, const unsigned char *end, uint64_t *v) {
	uint64_t x = 0;
	for (int i = 0; i < 9; i++) {
		if (p + i >= end) {
			return 0;
		}
		if (i == 8) {
			*v = x << 8 | p[i];
			return 9;
		}
		x = x << 7 | (p[i] & 0x7f);
		if ((p[i] & 0x80) == 0) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

typedef struct {
	const unsigned char *a;
	uint64_t pages, pageSize, usable, visited;
	uint64_t n, h;
} qeval_walk;

static const unsigned char *qeval_page(qeval_walk *w, uint64_t pgno) {
	if (pgno < 1 || pgno > w->pages || ++w->visited > w->pages) {
		return 0; // out of the file, or a cycle
	}
	return w->a + (pgno - 1) * w->pageSize;
}

// qeval_leaf_cell hashes one cell of a table leaf: its rowid and its whole payload,
// the part on the page and the overflow pages'.
static int qeval_leaf_cell(qeval_walk *w, const unsigned char *page, const unsigned char *cell) {
	const unsigned char *end = page + w->usable;
	uint64_t size, rowid;
	int k = qeval_varint(cell, end, &size);
	if (k == 0) {
		return -1;
	}
	cell += k;
	if ((k = qeval_varint(cell, end, &rowid)) == 0) {
		return -1;
	}
	cell += k;
	uint64_t u = w->usable, x = u - 35, local = size;
	if (size > x) {
		uint64_t m = ((u - 12) * 32 / 255) - 23;
		local = m + (size - m) % (u - 4);
		if (local > x) {
			local = m;
		}
	}
	if (cell + local > end) {
		return -1;
	}
	w->h = qeval_round(qeval_round(w->h, rowid), size);
	w->h = qeval_bytes(w->h, cell, local);
	uint64_t left = size - local;
	if (left == 0) {
		return 0;
	}
	if (cell + local + 4 > end) {
		return -1;
	}
	uint64_t next = qeval_get(cell + local, 4);
	while (left > 0) {
		const unsigned char *ov = qeval_page(w, next);
		if (ov == 0) {
			return -1;
		}
		uint64_t n = left < u - 4 ? left : u - 4;
		w->h = qeval_bytes(w->h, ov + 4, n);
		left -= n;
		next = qeval_get(ov, 4);
	}
	return 0;
}

// qeval_walk_page visits a table b-tree page and what is under it, in rowid order.
static int qeval_walk_page(qeval_walk *w, uint64_t pgno, int depth) {
	const unsigned char *page = qeval_page(w, pgno);
	if (page == 0 || depth > 64) {
		return -1;
	}
	const unsigned char *hdr = pgno == 1 ? page + 100 : page;
	const unsigned char *end = page + w->usable;
	if (hdr + 12 > end) {
		return -1;
	}
	int kind = hdr[0];
	uint64_t cells = qeval_get(hdr + 3, 2);
	const unsigned char *ptrs = hdr + (kind == 5 ? 12 : 8);
	if (kind != 5 && kind != 13) {
		return -1; // not a table b-tree (an index, WITHOUT ROWID)
	}
	if (ptrs + 2 * cells > end) {
		return -1;
	}
	for (uint64_t i = 0; i < cells; i++) {
		uint64_t off = qeval_get(ptrs + 2 * i, 2);
		if (off < (uint64_t)(ptrs + 2 * cells - page) || off + 4 > w->usable) {
			return -1;
		}
		if (kind == 13) {
			if (qeval_leaf_cell(w, page, page + off) != 0) {
				return -1;
			}
			w->n++;
		} else if (qeval_walk_page(w, qeval_get(page + off, 4), depth + 1) != 0) {
			return -1;
		}
	}
	if (kind == 5) {
		return qeval_walk_page(w, qeval_get(hdr + 8, 4), depth + 1);
	}
	return 0;
}

// qeval_stored_digest hashes the rows of the table whose b-tree starts at root, as they
// are stored in the connection's in-memory main database: its rowids and records in
// rowid order. 0 when done; -1 when the database is not in memory, a transaction is
// open (its pages may not be in the memory yet), or the b-tree is not a table's or not
// sound.
static int qeval_stored_digest(sqlite3_int64 h, sqlite3_int64 root, uint64_t *out) {
	sqlite3 *db = (sqlite3 *)(intptr_t)h;
	if (!sqlite3_get_autocommit(db)) {
		return -1;
	}
	sqlite3_int64 sz = 0;
	const unsigned char *a = sqlite3_serialize(db, "main", &sz, QEVAL_CI_SERIALIZE_NOCOPY);
	if (a == 0 || sz < 512) {
		return -1;
	}
	qeval_walk w = {0};
	w.a = a;
	w.pageSize = qeval_get(a + 16, 2);
	if (w.pageSize == 1) {
		w.pageSize = 65536;
	}
	if (w.pageSize < 512) {
		return -1;
	}
	w.usable = w.pageSize - a[20];
	if (w.usable < 480) {
		return -1;
	}
	w.pages = (uint64_t)sz / w.pageSize;
	w.h = qeval_round(0x736f6d6570736575ULL, w.usable);
	if (root < 1 || qeval_walk_page(&w, (uint64_t)root, 0) != 0) {
		return -1;
	}
	out[0] = w.n;
	out[1] = qeval_round(w.h, w.n);
	return 0;
}
*/
import "C"

import (
	"context"
	"fmt"
	"strconv"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// handleFunc is qeval_sandbox_handle: statements may not call it (see the authorizer).
const handleFunc = "qeval_sandbox_handle"

var handleExt = &autoExtension{name: handleFunc, install: func() C.int { return C.qeval_install_handle() }}

// installHandle registers qeval_sandbox_handle on every SQLite connection opened from
// now on.
func installHandle() error { return handleExt.load() }

// connHandle is the C handle of a sandbox connection (c trusted).
func connHandle(ctx context.Context, c *sqlite3.SQLiteConn) (int64, error) {
	h, err := queryInt(ctx, c, "SELECT "+handleFunc+"()")
	if err == nil && h == 0 {
		err = fmt.Errorf("%s returned 0", handleFunc)
	}
	return h, err
}

// loadImage makes the connection h's main database a new in-memory copy of image. No
// statement of the connection may be running.
func loadImage(h int64, image []byte) error {
	if len(image) == 0 {
		return fmt.Errorf("no image to load")
	}
	if rc := C.qeval_load_image(C.sqlite3_int64(h), unsafe.Pointer(&image[0]), C.sqlite3_int64(len(image))); rc != 0 {
		return fmt.Errorf("load the pristine copy: sqlite error %d", int(rc))
	}
	return nil
}

// autocommit reports that the connection h has no transaction open.
func autocommit(h int64) bool { return C.qeval_autocommit(C.sqlite3_int64(h)) != 0 }

// storedDigest is the digest of the rows of the table whose b-tree starts at root, as
// stored in the connection h's in-memory database (see qeval_stored_digest); ok false
// when it cannot be taken.
func storedDigest(h, root int64) (digest string, rows int, ok bool) {
	var out [2]C.uint64_t
	if C.qeval_stored_digest(C.sqlite3_int64(h), C.sqlite3_int64(root), &out[0]) != 0 {
		return "", 0, false
	}
	return strconv.FormatUint(uint64(out[1]), 16), int(out[0]), true
}
