package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocs_EveryCommand checks README.md's command table and docs/commands.md name
// every command qeval has, so a newcomer finds each one (db, kql, verify… were once
// missing).
func TestDocs_EveryCommand(t *testing.T) {
	for _, doc := range []string{"README.md", filepath.Join("docs", "commands.md")} {
		b, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		for name := range commands {
			if !strings.Contains(string(b), "| `qeval "+name) {
				t.Errorf("%s: the command table has no row for qeval %s", doc, name)
			}
		}
	}
}
