package mysql_test

import (
	"slices"
	"testing"

	"github.com/qeval/qeval/mysql"
)

// The grants SHOW GRANTS prints, as MariaDB and MySQL 8 print them: only reading
// databases other than the server's own passes.
func TestExcessGrants(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  []string
	}{
		{[]string{"GRANT USAGE ON *.* TO `r`@`%`", "GRANT SELECT, SHOW VIEW ON `test`.* TO `r`@`%`"}, nil},
		{[]string{"GRANT SELECT (`a`, `b`), SHOW VIEW ON `test`.`t` TO 'r'@'%'"}, nil},
		{[]string{"GRANT `role` TO `r`@`%`", "GRANT USAGE ON *.* TO `r`@`%` IDENTIFIED BY PASSWORD '*AB'"}, nil},
		{[]string{"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION", "GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION"},
			[]string{"ALL PRIVILEGES on *.*", "PROXY on ''@'%'"}},
		{[]string{"GRANT SELECT ON *.* TO `r`@`%`"}, []string{"SELECT on *.*"}},
		{[]string{"GRANT SELECT ON `mysql`.* TO `r`@`%`"}, []string{"SELECT on `mysql`.*"}},
		{[]string{"GRANT SELECT, INSERT, FILE ON `test`.* TO `r`@`%`"}, []string{"INSERT on `test`.*", "FILE on `test`.*"}},
		{[]string{"GRANT APPLICATION_PASSWORD_ADMIN,AUDIT_ADMIN ON *.* TO `root`@`localhost`"}, []string{"APPLICATION_PASSWORD_ADMIN on *.*", "AUDIT_ADMIN on *.*"}},
		{[]string{"grant select, create view on test.* to r@'%'"}, []string{"CREATE VIEW on test.*"}},
	} {
		if got := mysql.ExcessGrants(tc.lines); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.lines, got, tc.want)
		}
	}
}
