//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func rssKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// Releasing the start-up pages lowers resident memory, and the program goes on working
// (the code it runs afterwards comes back from the page cache).
func TestReleaseStartupPages(t *testing.T) {
	before := rssKB(t)
	releaseStartupPages()
	after := rssKB(t)
	if after >= before {
		t.Errorf("VmRSS %d kB before, %d kB after: nothing released", before, after)
	}
	if code, out, _ := runCLI(t, "", "modes"); code != exitOK || !strings.Contains(out, "spider-ts@1") {
		t.Errorf("the CLI does not work after the release: %d %q", code, out)
	}
}
