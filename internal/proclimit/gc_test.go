package proclimit

import (
	"runtime/debug"
	"testing"
)

// A large suite collects at 2x the live heap (it is no longer small), unless GOGC says
// otherwise; a small one keeps the batch setting.
func TestTuneForSuite(t *testing.T) {
	prev := debug.SetGCPercent(200)
	defer debug.SetGCPercent(prev)
	none := func(string) string { return "" }
	TuneForSuite(none, LargeSuite, 0)
	if got := debug.SetGCPercent(200); got != 200 {
		t.Errorf("a suite of %d cases: GC percent %d, want 200", LargeSuite, got)
	}
	TuneForSuite(none, LargeSuite+1, 0)
	if got := debug.SetGCPercent(200); got != 100 {
		t.Errorf("a suite of %d cases: GC percent %d, want 100", LargeSuite+1, got)
	}
	TuneForSuite(func(k string) string { return map[string]string{"GOGC": "400"}[k] }, 10*LargeSuite, 0)
	if got := debug.SetGCPercent(200); got != 200 {
		t.Errorf("GOGC set: GC percent changed to %d", got)
	}
}

// The soft memory limit follows the run's results budget and its size, unless
// GOMEMLIMIT is set.
func TestTuneForSuite_MemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	none := func(string) string { return "" }
	TuneForSuite(none, 1000, 256<<20)
	if got, want := debug.SetMemoryLimit(-1), int64(256<<20+runBaseBytes+1000*perCaseBytes); got != want {
		t.Errorf("limit %d, want %d", got, want)
	}
	TuneForServer(none, 512<<20)
	if got, want := debug.SetMemoryLimit(-1), int64(512<<20+serverBaseBytes); got != want {
		t.Errorf("server limit %d, want %d", got, want)
	}
	debug.SetMemoryLimit(prev)
	TuneForSuite(func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] }, 1000, 256<<20)
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("GOMEMLIMIT set: limit changed to %d", got)
	}
}
