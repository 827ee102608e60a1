package validate_test

import (
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/validate"
)

// The attacks generated SQL was tried with are refused from the parse tree, whatever
// the spelling (U& escapes, quoting, schema qualification).
func TestGuard_Postgres(t *testing.T) {
	g := validate.Guard("postgres")
	for _, q := range []string{
		`SELECT U&"pg\005fterminate\005fbackend"(pid) FROM pg_stat_activity WHERE application_name='victim'`,
		`SELECT U&"pg\005fread\005ffile"('/etc/hostname')`,
		`SELECT word FROM ts_stat($$SELECT to_tsvector('simple', pg_read_file('/etc/hostname'))$$)`,
		`SELECT U&"lo\005fimport"('/etc/hostname')`,
		`SELECT * FROM U&"pg\005fls\005fdir"('.')`,
		`SELECT "pg_catalog"."pg_read_file"('/etc/hostname')`,
		`SELECT query_to_xml('select 1', true, true, '')`,
		`SELECT set_config('role', 'postgres', true)`,
		`SELECT dblink('host=x', 'select 1')`,
		`SELECT 1; SELECT 2`,
		`DELETE FROM t`,
	} {
		if err := g(q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("Guard(%q) = %v, want forbidden", q, err)
		}
	}
	for _, q := range []string{
		`SELECT pg_typeof(1), lower('A'), count(*) FROM t`,
		`SELECT pg_sleep(0.01)`,
		`WITH x AS (SELECT 1) SELECT * FROM x`,
	} {
		if err := g(q); err != nil {
			t.Errorf("Guard(%q) = %v, want nil", q, err)
		}
	}
}

func TestGuard_MySQL(t *testing.T) {
	g := validate.Guard("mysql")
	for _, q := range []string{"SELECT LOAD_FILE('/etc/hostname')", "SELECT `load_file`('/etc/hostname')", "SELECT GET_LOCK('x', 10)"} {
		if err := g(q); qeval.ErrorCode(err) != qeval.CodeForbidden {
			t.Errorf("Guard(%q) = %v, want forbidden", q, err)
		}
	}
	if err := g("SELECT SLEEP(0), CONCAT('a', 'b')"); err != nil {
		t.Errorf("Guard(sleep) = %v", err)
	}
}
