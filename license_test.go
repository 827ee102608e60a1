package qeval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLicense checks the code's licence is the Apache License 2.0, whole, and that
// NOTICE lists the bundled data with their own licences: every example folder and
// every licence file under examples/.
func TestLicense(t *testing.T) {
	b, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	lic := string(b)
	for _, want := range []string{"Apache License\n                           Version 2.0, January 2004",
		"TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", "END OF TERMS AND CONDITIONS"} {
		if !strings.Contains(lic, want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
	b, err = os.ReadFile("NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	notice := string(b)
	dirs, err := os.ReadDir("examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && !strings.Contains(notice, "examples/"+d.Name()+"/") {
			t.Errorf("NOTICE does not say under which licence examples/%s/ is", d.Name())
		}
	}
	files, err := filepath.Glob(filepath.Join("examples", "*", "LICENSE*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples/*/LICENSE* files: the glob is wrong")
	}
	for _, f := range files {
		if !strings.Contains(notice, filepath.ToSlash(f)) {
			t.Errorf("NOTICE does not name %s", f)
		}
	}
}
