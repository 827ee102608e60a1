package mysql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
)

var mirrorTable = qeval.TableDef{Name: "Singer", PrimaryKey: []string{"Code", "Singer_ID"}, Columns: []qeval.ColumnDef{
	{Name: "Singer_ID", Type: qeval.TypeInteger, NotNull: true},
	{Name: "Code", Type: qeval.TypeText},
	{Name: "Name", Type: qeval.TypeText},
	{Name: "Worth", Type: qeval.TypeDouble},
	{Name: "Born", Type: qeval.TypeDate},
}}

// TestWriter_Mirror: a copied table keeps its row order (MyISAM) and types, a text key
// fits the key limit, the copy is read as qeval_reader and refuses writes, a second copy
// without replace is refused, and an aborted copy leaves no database.
func TestWriter_Mirror(t *testing.T) {
	admin := mustAdmin(t, "")
	ctx := context.Background()
	const adminURL = "mysql://root@127.0.0.1:3306/test"
	const name = "qeval_mirror_test"
	t.Cleanup(func() { mysql.DropDatabase(ctx, adminURL, name) })
	w, err := mysql.CreateDatabase(ctx, adminURL, name, true)
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]qeval.Value{
		{qeval.Int(3), qeval.Text("c"), qeval.Text("Zoe"), qeval.Float(1.5), qeval.Time(time.Date(1970, 5, 6, 0, 0, 0, 0, time.UTC))},
		{qeval.Int(1), qeval.Text("a"), qeval.Text("Al"), qeval.Int(2), {}},
		{qeval.Int(2), qeval.Text("b"), {}, {}, {}},
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
	if !strings.Contains(w.Target(), "qeval_reader@") || !strings.HasSuffix(w.Target(), "/"+name) {
		t.Fatalf("target %s", w.Target())
	}
	ex, err := mysql.Open(w.Target(), qeval.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	rs, err := ex.Query(ctx, "SELECT Singer_ID, name, worth FROM singer")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rows) != 3 || rs.Rows[0][0] != qeval.Int(3) || rs.Rows[1][0] != qeval.Int(1) || rs.Rows[0][1] != qeval.Text("Zoe") || !rs.Rows[2][1].IsNull() {
		t.Errorf("rows %v: want the copy in the order written", rs.Rows)
	}
	if _, err := ex.Query(ctx, "DELETE FROM singer"); err == nil {
		t.Error("a write through the reader went through")
	}
	if _, err := mysql.CreateDatabase(ctx, adminURL, name, false); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second copy without replace: %v", err)
	}
	const gone = "qeval_mirror_aborted"
	w2, err := mysql.CreateDatabase(ctx, adminURL, gone, true)
	if err != nil {
		t.Fatal(err)
	}
	w2.Abort()
	var n int
	if err := admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", gone).Scan(&n); err != nil || n != 0 {
		t.Errorf("aborted database: %d left, %v", n, err)
	}
}
