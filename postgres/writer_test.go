package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/postgres"
)

var mirrorTable = qeval.TableDef{Name: "Singer", PrimaryKey: []string{"Singer_ID"}, Columns: []qeval.ColumnDef{
	{Name: "Singer_ID", Type: qeval.TypeInteger, NotNull: true},
	{Name: "Name", Type: qeval.TypeText},
	{Name: "Worth", Type: qeval.TypeDouble},
	{Name: "Price", Type: qeval.TypeDecimal, Precision: 10, Scale: 2},
	{Name: "Born", Type: qeval.TypeDate},
	{Name: "Active", Type: qeval.TypeBoolean},
}}

// TestWriter_Mirror: a copied table keeps its types, key and row order, is read as
// qeval_reader through the schema in search_path (names lower-cased, so SQLite-style
// queries find them), a second copy without replace is refused, and an aborted copy
// leaves no schema.
func TestWriter_Mirror(t *testing.T) {
	admin := mustAdmin(t)
	ctx := context.Background()
	const schema = "qeval_mirror_test"
	t.Cleanup(func() { postgres.DropSchema(ctx, testDSN(), schema) })
	w, err := postgres.CreateSchema(ctx, testDSN(), schema, true)
	if err != nil {
		t.Fatal(err)
	}
	born := time.Date(1970, 5, 6, 0, 0, 0, 0, time.UTC)
	rows := [][]qeval.Value{
		{qeval.Int(3), qeval.Text("Zoe"), qeval.Float(1.5), qeval.Float(9.99), qeval.Time(born), qeval.Bool(true)},
		{qeval.Int(1), qeval.Text("Al"), qeval.Int(2), qeval.Float(0.5), {}, qeval.Bool(false)},
		{qeval.Int(2), {}, {}, {}, {}, {}},
	}
	if err := w.Create(ctx, mirrorTable); err != nil {
		t.Fatal(err)
	}
	if err := w.Insert(ctx, mirrorTable, rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Target(), "qeval_reader@") || !strings.Contains(w.Target(), "search_path="+schema) {
		t.Fatalf("target %s", postgres.MaskDSN(w.Target()))
	}
	ex, err := postgres.Open(w.Target(), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	rs, err := ex.Query(ctx, "SELECT singer_id, name, worth, price, born, active FROM singer")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rows) != 3 || rs.Rows[0][0] != qeval.Int(3) || rs.Rows[1][0] != qeval.Int(1) || rs.Rows[0][1] != qeval.Text("Zoe") ||
		rs.Rows[1][2].Kind != qeval.KindFloat || !rs.Rows[2][1].IsNull() {
		t.Errorf("rows %v: want the copy in the order written, typed", rs.Rows)
	}
	if _, err := ex.Query(ctx, "DELETE FROM singer"); qeval.ErrorCode(err) != qeval.CodeForbidden {
		t.Errorf("a write through the reader: %v", err)
	}
	var key string
	if err := admin.QueryRow(ctx, `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
		WHERE i.indrelid = 'qeval_mirror_test.singer'::regclass AND i.indisprimary`).Scan(&key); err != nil || key != "singer_id" {
		t.Errorf("primary key %q %v", key, err)
	}
	if _, err := postgres.CreateSchema(ctx, testDSN(), schema, false); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second copy without replace: %v", err)
	}
	// an aborted copy leaves nothing
	const gone = "qeval_mirror_aborted"
	w2, err := postgres.CreateSchema(ctx, testDSN(), gone, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Create(ctx, mirrorTable); err != nil {
		t.Fatal(err)
	}
	w2.Abort()
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", gone).Scan(&n); err != nil || n != 0 {
		t.Errorf("aborted schema: %d left, %v", n, err)
	}
}
