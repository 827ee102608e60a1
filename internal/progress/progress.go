// Package progress shows how far a run is, on a terminal or in a log.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/qeval/qeval"
)

// Progress shows cases done, the pass rate so far, the ETA and judge calls: a bar
// redrawn in place on a terminal, a line every 10% (or 10 s) otherwise.
type Progress struct {
	mu          sync.Mutex
	w           io.Writer
	total, done int
	passed      int
	start, last time.Time
	tty, quiet  bool
	lastPct     int
	calls       int64
}

// New returns a progress display of total cases on w (nothing when quiet).
func New(w io.Writer, total int, quiet bool) *Progress {
	return &Progress{w: w, total: total, start: time.Now(), last: time.Now(), tty: isTerminal(w), quiet: quiet || total == 0, lastPct: -1}
}

func (p *Progress) Add(r qeval.CaseResult, calls int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r.Status == qeval.StatusPass {
		p.passed++
	}
	p.calls = calls
	if p.quiet {
		return
	}
	pct := 100 * p.done / p.total
	if p.tty {
		p.draw()
		return
	}
	if pct/10 != p.lastPct/10 || time.Since(p.last) > 10*time.Second || p.done == p.total {
		p.lastPct, p.last = pct, time.Now()
		fmt.Fprintf(p.w, "%s\n", p.line())
	}
}

func (p *Progress) line() string {
	elapsed := time.Since(p.start)
	eta := "?"
	if p.done > 0 {
		eta = (time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))).Round(time.Second).String()
	}
	return fmt.Sprintf("%d/%d cases, pass rate %.1f%%, ETA %s, judge calls %d", p.done, p.total,
		100*float64(p.passed)/float64(max(p.done, 1)), eta, p.calls)
}

func (p *Progress) draw() {
	const width = 24
	filled := width * p.done / p.total
	fmt.Fprintf(p.w, "\r[%s%s] %s ", strings.Repeat("█", filled), strings.Repeat("·", width-filled), p.line())
}

func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && !p.quiet && p.done > 0 {
		fmt.Fprintln(p.w)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
