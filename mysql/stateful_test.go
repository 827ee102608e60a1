package mysql_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
)

// SandboxDSN makes a source database with setup and a sandbox user for it (as qeval db
// setup-role --sandbox does), both dropped when the test ends, and returns the user's
// DSN and the database's name.
func sandboxDSN(tb testing.TB, setup ...string) (string, string) {
	tb.Helper()
	name := newDatabase(tb, setup)
	admin := mustAdmin(tb, "")
	user := "qs_" + strings.TrimPrefix(name, "qeval_test_")
	for _, q := range mysql.SandboxSetupSQL(user, "%", name, "") {
		mustExec(tb, admin, q)
	}
	tb.Cleanup(func() { admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	cfg, err := gomysql.ParseDSN(dsnFor(tb, name, nil))
	if err != nil {
		tb.Fatal(err)
	}
	cfg.User, cfg.Passwd = user, ""
	return cfg.FormatDSN(), name
}

var shopMySQL = []string{
	"CREATE TABLE item (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(6,2), stock INT, KEY item_stock (stock))",
	"INSERT INTO item (name, price, stock) VALUES ('pen', 1.5, 10), ('ink', 4.0, 0), ('pad', 2.5, 7)",
	"CREATE TABLE sale (item_id INT, qty INT, FOREIGN KEY (item_id) REFERENCES item(id))",
	"INSERT INTO sale VALUES (1, 2), (3, 1)",
}

func TestSandbox_MySQL(t *testing.T) {
	dsn, source := sandboxDSN(t, shopMySQL...)
	ctx := context.Background()
	sb, err := mysql.NewSandbox(ctx, dsn, qeval.Limits{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for _, q := range []string{"UPDATE item SET price = price * 2 WHERE stock = 0", "INSERT INTO item (name, price, stock) VALUES ('cap', 0.5, 3)",
		"DELETE FROM sale WHERE item_id = 3", "DELETE FROM item WHERE name = 'pad'", "CREATE TABLE cheap AS SELECT * FROM item WHERE price < 2",
		"ALTER TABLE item ADD COLUMN note TEXT", "CREATE UNIQUE INDEX item_name ON item (name)", "START TRANSACTION", "DELETE FROM sale",
		"ROLLBACK", "SET foreign_key_checks = 1", "SET @x = 1"} {
		if _, err := sb.Query(ctx, q); err != nil {
			t.Fatalf("Query(%q): %v", q, err)
		}
	}
	rs, err := sb.Rows(ctx, "item", true)
	if err != nil {
		t.Fatal(err)
	}
	if rs.NumRows() != 3 || rs.Rows[2][1] != qeval.Text("cap") || rs.Rows[2][0] != qeval.Int(4) {
		t.Errorf("rows of item = %v (AUTO_INCREMENT kept: cap is 4)", rs.Rows)
	}
	tables, err := sb.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 3 || tables[1].Name != "item" || !reflect.DeepEqual(tables[1].PrimaryKey, []string{"id"}) ||
		!reflect.DeepEqual(tables[1].Indexes, []string{"(stock)", "unique (name)"}) || len(tables[2].ForeignKeys) != 1 {
		t.Errorf("Tables = %+v", tables)
	}
	if c, err := sb.Cost(ctx, "UPDATE item SET stock = 0 WHERE stock > 1"); err != nil || c <= 0 {
		t.Errorf("Cost = %v, %v", c, err)
	}
	for _, q := range []string{"CREATE DATABASE qeval_sbx_1_1_x", "DROP DATABASE " + source, "USE " + source, "UPDATE " + source + ".item SET stock = 0",
		"CREATE USER x", "GRANT ALL ON *.* TO CURRENT_USER", "SELECT * FROM item INTO OUTFILE '/tmp/qeval-item.txt'", "SELECT LOAD_FILE('/etc/passwd')",
		"LOAD DATA INFILE '/etc/passwd' INTO TABLE item", "SET GLOBAL max_connections = 1", "SET SESSION max_statement_time = 0",
		"SET @@session.max_statement_time = 0", "KILL 1", "INSERT INTO qeval_sbx_1_1_other.t VALUES (1)", "FLUSH TABLES", "INSTALL PLUGIN x SONAME 'x.so'"} {
		if _, err := sb.Query(ctx, q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("Query(%q) = %v (%s), want forbidden", q, err, qeval.ErrorCode(err))
		}
	}
	_, err = sb.Query(ctx, "INSERT INTO cheap (id, name) SELECT 9, 'x' FROM (SELECT SLEEP(30)) s")
	if qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Errorf("a statement that never ends: %v, want a timeout", err)
	}
	name := sb.Name()
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	admin := mustAdmin(t, "")
	var n int
	admin.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", name).Scan(&n)
	if n != 0 {
		t.Errorf("the copy %s is still there", name)
	}
	var prices string
	admin.QueryRow("SELECT GROUP_CONCAT(CONCAT(name, ':', price) ORDER BY id) FROM " + source + ".item").Scan(&prices)
	if prices != "pen:1.50,ink:4.00,pad:2.50" {
		t.Errorf("the source changed: %s", prices)
	}
}
