package stateful_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
	"github.com/qeval/qeval/postgres"
)

// The same kinds of cases as the Chinook example, on the local PostgreSQL and MariaDB
// servers, through the registry's sandboxes (a template copy per case and side on
// PostgreSQL, a copied database on MariaDB) made by the roles `qeval db setup-role
// --sandbox` makes.

func serverSetup() []string {
	return []string{
		"CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(6,2), stock INT)",
		"INSERT INTO item VALUES (1, 'pen', 1.50, 10), (2, 'ink', 4.00, 0), (3, 'pad', 2.50, 7), (4, 'cap', 0.50, 3)",
		"CREATE TABLE sale (item_id INT REFERENCES item(id), qty INT)",
		"INSERT INTO sale VALUES (1, 2), (3, 1)",
	}
}

type serverCase struct {
	name       string
	spec       qeval.StatefulSpec
	gold, pred string
	want       qeval.Outcome
	says       []string
}

func serverCases(outside string) []serverCase {
	all := qeval.StatefulSpec{CompareState: &qeval.StateCompare{All: true}}
	return []serverCase{
		{"update written another way", all, "UPDATE item SET price = price * 2 WHERE stock = 0",
			"UPDATE item SET price = price + price WHERE id IN (SELECT s.id FROM (SELECT id FROM item WHERE stock < 1) s)", qeval.OutcomeMatch, nil},
		{"update with a wrong where", all, "UPDATE item SET price = price * 2 WHERE stock = 0",
			"UPDATE item SET price = price * 2 WHERE stock < 5", qeval.OutcomeMismatch, []string{"table item", "1 row(s) changed", "cap"}},
		{"an extra delete", all, "DELETE FROM sale WHERE item_id = 3",
			"DELETE FROM sale WHERE item_id = 3; DELETE FROM item WHERE stock = 0", qeval.OutcomeMismatch, []string{"table item", "1 row(s) removed", "ink"}},
		{"a missing insert", all, "INSERT INTO item VALUES (5, 'tape', 3.00, 1); INSERT INTO sale VALUES (5, 1)",
			"INSERT INTO item VALUES (5, 'tape', 3.00, 1)", qeval.OutcomeMismatch, []string{"table sale", "1 row(s) removed"}},
		{"insert then update matches", all, "INSERT INTO item VALUES (5, 'tape', 3.00, 1); UPDATE item SET stock = stock + 1 WHERE id = 5",
			"INSERT INTO item (id, name, price, stock) VALUES (5, 'tape', 3, 2)", qeval.OutcomeMatch, nil},
		{"create table as select passes its checks", qeval.StatefulSpec{Checks: qeval.Statements{"SELECT name FROM cheap ORDER BY name", "SELECT count(*) FROM cheap"}},
			"CREATE TABLE cheap AS SELECT * FROM item WHERE price < 2",
			"CREATE TABLE cheap (id INT, name VARCHAR(20), price DECIMAL(6,2), stock INT); INSERT INTO cheap SELECT * FROM item WHERE price <= 1.5", qeval.OutcomeMatch, nil},
		{"a definition that differs", qeval.StatefulSpec{CompareSchema: true}, "CREATE INDEX item_name ON item (name)",
			"CREATE UNIQUE INDEX ix ON item (name)", qeval.OutcomeMismatch, []string{"indexes"}},
		{"reaching outside is refused", all, "DELETE FROM sale", outside + "; DELETE FROM sale", qeval.OutcomePredError, []string{"statement 1 of 2", "not allowed"}},
		{"a setup that fails", qeval.StatefulSpec{Setup: qeval.Statements{"INSERT INTO nowhere VALUES (1)"}, CompareState: &qeval.StateCompare{All: true}},
			"DELETE FROM sale", "DELETE FROM sale", qeval.OutcomeSetupError, []string{"setup statement 1"}},
		{"a costlier answer", qeval.StatefulSpec{CompareState: &qeval.StateCompare{Tables: []string{"sale"}}, Efficiency: &qeval.Efficiency{MaxRatio: 1}},
			"DELETE FROM sale WHERE item_id = 1",
			"DELETE FROM sale WHERE item_id IN (SELECT i.id FROM item i, item j, item k WHERE i.id = 1)", qeval.OutcomeMismatch, []string{"the generated answer costs"}},
	}
}

func runServerCases(t *testing.T, target string, outside string) {
	src := source(t, target)
	for _, c := range serverCases(outside) {
		t.Run(c.name, func(t *testing.T) {
			v := match(t, src, c.spec, c.gold, c.pred, qeval.Limits{Timeout: 10 * time.Second})
			text := v.Error + " " + v.State.String()
			if v.Outcome != c.want || v.Match != (c.want == qeval.OutcomeMatch) {
				t.Fatalf("outcome %s (match %v), want %s: %s", v.Outcome, v.Match, c.want, text)
			}
			for _, s := range c.says {
				if !strings.Contains(text, s) {
					t.Errorf("the verdict does not say %q: %s", s, text)
				}
			}
		})
	}
}

func suffix() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func TestMatch_Postgres(t *testing.T) {
	admin := os.Getenv("QEVAL_TEST_POSTGRES")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Skipf("PostgreSQL is not reachable at %s (%v); set QEVAL_TEST_POSTGRES to run this test", postgres.MaskDSN(admin), err)
	}
	defer conn.Close(ctx)
	sfx := suffix()
	db, role := "qeval_stm_"+sfx, "qeval_stm_role_"+sfx
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Exec(ctx, "ALTER DATABASE "+postgres.TemplateName(db)+" IS_TEMPLATE false")
		conn.Exec(ctx, "DROP DATABASE IF EXISTS "+postgres.TemplateName(db)+" WITH (FORCE)")
		conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		conn.Exec(ctx, "DROP ROLE IF EXISTS "+role)
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Skipf("QEVAL_TEST_POSTGRES is not a URL: %v", err)
	}
	u.Path = "/" + db
	sc, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range serverSetup() {
		if _, err := sc.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	sc.Close(ctx)
	dsn, err := postgres.SetupSandbox(ctx, u.String(), role, "pw-"+sfx+"-long-enough")
	if err != nil {
		t.Fatal(err)
	}
	runServerCases(t, dsn, "COPY item TO '/tmp/qeval-stateful-item.csv'")
	if _, err := os.Stat("/tmp/qeval-stateful-item.csv"); err == nil {
		t.Error("COPY wrote a file")
	}
	var left int
	conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE 'qeval\\_sbx\\_%' AND pg_catalog.pg_get_userbyid(datdba) = $1", role).Scan(&left)
	if left != 0 {
		t.Errorf("%d sandbox copies are left", left)
	}
}

func TestMatch_MariaDB(t *testing.T) {
	admin := os.Getenv("QEVAL_TEST_MYSQL")
	if admin == "" {
		admin = "root@tcp(127.0.0.1:3306)/test"
	}
	adm, err := sql.Open("mysql", admin)
	if err == nil {
		err = adm.Ping()
	}
	if err != nil {
		t.Skipf("MySQL/MariaDB is not reachable at %s (%v); set QEVAL_TEST_MYSQL to run this test", mysql.MaskDSN(admin), err)
	}
	defer adm.Close()
	sfx := suffix()
	db, user := "qeval_stm_"+sfx, "qeval_stm_"+sfx
	if _, err := adm.Exec("CREATE DATABASE " + db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		adm.Exec("DROP DATABASE IF EXISTS " + db)
		adm.Exec("DROP USER IF EXISTS '" + user + "'@'%'")
	})
	dbDSN := strings.Replace(admin, "/test", "/"+db, 1)
	dc, err := sql.Open("mysql", dbDSN)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range serverSetup() {
		if _, err := dc.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	dc.Close()
	r, err := mysql.SetupSandbox(context.Background(), dbDSN, user, "%", "pw-"+sfx+"-long-enough")
	if err != nil {
		t.Fatal(err)
	}
	runServerCases(t, r.DSN, "SELECT * FROM item INTO OUTFILE '/tmp/qeval-stateful-item.txt'")
	var left int
	adm.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name LIKE 'qeval\\_sbx\\_" + itoa(os.Getpid()) + "\\_%'").Scan(&left)
	if left != 0 {
		t.Errorf("%d sandbox copies are left", left)
	}
	// the sandbox user may read the source but not change it
	uc, err := sql.Open("mysql", strings.Replace(strings.Replace(r.DSN, "mysql://", "", 1), "@127.0.0.1:3306", "@tcp(127.0.0.1:3306)", 1))
	if err == nil {
		defer uc.Close()
		if _, err := uc.Exec("UPDATE item SET stock = 0"); err == nil {
			t.Error("the sandbox user changed the source")
		}
	}
}

func itoa(n int) string {
	b := []byte{}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
