package proclimit

import "runtime/debug"

// TuneGC trades memory for speed in this short-lived batch process: the live heap is
// small (3 MB in a Spider run), so collecting at 2.5x it (instead of 2x) saves CPU time,
// and measured as fast as 3x with 2 MB less peak memory (a Spider run's peak is 40 MB);
// a soft limit keeps a huge result from letting the heap run away. GOGC and GOMEMLIMIT
// still win when set.
func TuneGC(getenv func(string) string) {
	tuneGCPercent(getenv, 150)
	setMemoryLimit(getenv, 3<<30)
}

// LargeSuite is the suite size past which a run's live heap (the suite, an index entry
// and a few summary numbers per case) is no longer small: TuneForSuite then collects at
// 2x it, which measured as fast on 200,000 cases and 0.2 GB lighter.
const LargeSuite = 10_000

// Memory a run keeps besides its results: the program, the suite, the caches
// (runBaseBytes) and each case's index entry and summary numbers (perCaseBytes, with
// room to spare).
const (
	runBaseBytes = 64 << 20
	perCaseBytes = 4 << 10
)

// TuneForSuite fits the collector to a run: a large suite collects at 2x the live heap,
// and the soft memory limit becomes what the run may hold (its results budget, runBytes,
// the program and the suite) instead of letting garbage reach 3x a peak of hostile
// results: a corpus of 222 hostile queries peaked at 634 MB with the batch setting,
// under 512 MB with this one. GOGC and GOMEMLIMIT still win when set.
func TuneForSuite(getenv func(string) string, cases int, runBytes int64) {
	if cases > LargeSuite {
		tuneGCPercent(getenv, 100)
	}
	if runBytes > 0 {
		setMemoryLimit(getenv, runBytes+runBaseBytes+int64(cases)*perCaseBytes)
	}
}

// serverBaseBytes is what qeval serve keeps besides its runs' results: the program,
// the runs' stored views, the gold cache, requests in flight.
const serverBaseBytes = 192 << 20

// TuneForServer sets the soft memory limit of qeval serve to its runs' results budget
// and its own: hostile runs side by side no longer let garbage grow to the batch limit.
func TuneForServer(getenv func(string) string, runBytes int64) {
	setMemoryLimit(getenv, runBytes+serverBaseBytes)
}

// setMemoryLimit sets the soft memory limit unless GOMEMLIMIT is set.
func setMemoryLimit(getenv func(string) string, n int64) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(n)
	}
}

// tuneGCPercent sets the GC percent unless GOGC is set.
func tuneGCPercent(getenv func(string) string, percent int) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}
