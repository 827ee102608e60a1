package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/server"
)

// Errors returned to exec-match clients name databases by the names the server was
// started with, never by their files (issue 39: the DuckDB file's absolute path and the
// home folder reached the client).
func TestExecMatch_ErrorsWithoutServerPaths(t *testing.T) {
	root := mustDBRoot(t)
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone.sqlite")
	shop := filepath.Join(root, "shop", "shop.sqlite")
	raw, err := os.ReadFile(shop)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(gone, raw, 0o644)
	broken := filepath.Join(dir, "broken.duckdb")
	os.WriteFile(broken, []byte("this is not a DuckDB file, it only looks like one by its name"), 0o644)
	ts := MustServer(t, func(c *server.Config) {
		c.Databases = map[string]string{"gone": gone, "broken": "duckdb:" + broken}
	})
	os.Remove(gone) // the file went after the server started
	home, _ := os.UserHomeDir()
	res := execMatch(t, ts, []server.ExecMatchPair{
		{DB: "gone", Gold: "SELECT 1", Pred: "SELECT 1"},
		{DB: "broken", Gold: "SELECT 1", Pred: "SELECT 1"},
	})
	for i, r := range res {
		if r.Error == nil {
			t.Errorf("pair %d: no error", i)
			continue
		}
		msg := *r.Error
		for _, p := range []string{dir, root, home} {
			if p != "" && strings.Contains(msg, p) {
				t.Errorf("pair %d: the error shows the server path %s: %s", i, p, msg)
			}
		}
		if !strings.Contains(msg, []string{"gone", "broken"}[i]) {
			t.Errorf("pair %d: the error does not name the database: %s", i, msg)
		}
	}
}
