package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/xuri/excelize/v2"

	"github.com/qeval/qeval/server"
)

const chromiumPath = "/usr/bin/chromium"

// browserSession starts Debian's Chromium headless on a fresh profile. It records the
// console's errors, and on failure saves a screenshot in the test's artifact folder
// (kept with go test -artifacts).
type browserSession struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

func MustBrowser(t *testing.T) *browserSession {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("no Chromium at %s: install the Debian package chromium (.ci/run does) to run the browser test", chromiumPath)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// back and forward load the page again, as the tests of deep links expect
		chromedp.Flag("disable-back-forward-cache", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	b := &browserSession{ctx: bctx}
	console := chromedp.Console(bctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.problems = append(b.problems, m.URL+": "+m.Text)
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Logf("no screenshot: %v", err)
			return
		}
		p := filepath.Join(t.ArtifactDir(), "failure.png")
		if err := os.WriteFile(p, shot, 0o644); err == nil {
			t.Logf("screenshot of the page: %s", p)
		}
	})
	return b
}

func (b *browserSession) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

func (b *browserSession) text(t *testing.T, id string) string {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById(`+"`"+id+"`"+`).textContent`))
	if err != nil {
		t.Fatalf("text of #%s: %v", id, err)
	}
	return s
}

// slowSuite writes the live suite with its slow case counting to five million (a
// second or more), so that a watcher sees the other rows before the run ends.
func slowSuite(t *testing.T) string {
	t.Helper()
	s := strings.ReplaceAll(string(readFile(t, liveSuite)), "x < 500000)", "x < 5000000)")
	if !strings.Contains(s, "x < 5000000)") {
		t.Fatal("the live suite has no slow case to slow down")
	}
	p := filepath.Join(t.TempDir(), "live.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBrowser_LiveRun uses the page as a person would: it uploads a suite, starts it
// from the keyboard, sees rows arrive before the run ends, reads the summary, and
// downloads the Excel report and opens it.
func TestBrowser_LiveRun(t *testing.T) {
	b := MustBrowser(t)
	ts := MustServer(t, func(c *server.Config) { c.Suites = map[string]string{"chinook": "../examples/chinook/suite.yaml"} })
	ctx := b.ctx
	suiteFile := slowSuite(t)
	downloads := t.TempDir()
	progress := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			yes := true
			_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: downloads, EventsEnabled: &yes})
			return err
		}),
		chromedp.WaitVisible(chromedp.ID("start-form")),
		// the suites the server knows are offered; the upload is chosen instead
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#suite-select option").length === 2`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.SetUploadFiles(chromedp.ID("suite-file"), []string{suiteFile}),
		chromedp.Focus(chromedp.ID("start")),
		chromedp.KeyEvent(kb.Enter),
	); err != nil {
		t.Fatalf("start a run from the page: %v", err)
	}

	// Rows appear while the run goes on: the slow last case keeps it running.
	type live struct {
		Rows    int    `json:"rows"`
		Summary bool   `json:"summary"`
		Status  string `json:"status"`
		Bar     int    `json:"bar"`
		Past    string `json:"past"`
	}
	seen, err := chromedp.Run(ctx, chromedp.Poll[live](`(() => {
		const rows = document.querySelectorAll("#live li").length;
		const past = document.querySelector("#runs tr");
		const s = {rows, summary: !document.getElementById("summary").hidden,
			status: document.getElementById("run-status").textContent, bar: document.getElementById("progress").value,
			past: past ? past.textContent : ""};
		return ((rows >= 7 && s.past) || s.summary) ? s : null;
	})()`, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("waiting for live rows: %v", err)
	}
	if seen.Summary || seen.Rows >= 8 || !strings.Contains(seen.Status, "running") || seen.Bar < 7 {
		t.Fatalf("first look with 7 rows: %+v; want rows shown, the progress bar moving and the run still running", seen)
	}
	// the past-runs table follows the run as it goes, not the count when it started
	if !strings.Contains(seen.Past, "running7 / 8") {
		t.Errorf("past-runs row while the run goes on: %q, want it running at 7 / 8", seen.Past)
	}
	row := b.text(t, "live")
	for _, want := range []string{"Query executed (results: 1)", "Score: 100% (PASS ≥90%)",
		"Schema: 100% ×33.3% | Semantic: 100% ×33.3% | Results: 100% ×33.3% | LLM: skipped", "Execution error (pred_error)", "SELECT Nme FROM Artist"} {
		if !strings.Contains(row, want) {
			t.Errorf("live rows lack %q:\n%s", want, row)
		}
	}

	// The summary: five successes, three errors, the charts, the downloads.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("summary"))); err != nil {
		t.Fatalf("summary: %v", err)
	}
	if s, e := b.text(t, "success-count"), b.text(t, "error-count"); s != "5" || e != "3" {
		t.Errorf("Success (%s) and Error (%s), want 5 and 3", s, e)
	}
	if c := b.text(t, "summary-counts"); !strings.Contains(c, "5 passed, 3 failed or errored, of 8 cases. Pass rate 62.5%") {
		t.Errorf("counts: %q", c)
	}
	// the sections are collapsed to their count: opened, they draw their cards
	openSection(t, b, "error", 3)
	openSection(t, b, "success", 5)
	errs := b.text(t, "error-list")
	if !strings.Contains(errs, "✗") || !strings.Contains(errs, "Why: the generated query did not execute") || strings.Contains(errs, "p1 —") {
		t.Errorf("Error section:\n%s", errs)
	}
	if oks := b.text(t, "success-list"); !strings.Contains(oks, "✓") || !strings.Contains(oks, "slow —") || strings.Contains(oks, "f1 —") {
		t.Errorf("Success section:\n%s", oks)
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#charts svg").length`))
	if err != nil || charts < 3 {
		t.Errorf("%d charts (%v), want score distribution, component means and tags", charts, err)
	}
	border, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[getComputedStyle(document.querySelector("#success-list li")).borderLeftColor,
		getComputedStyle(document.querySelector("#error-list li")).borderLeftColor]`))
	if err != nil || border[0] != "rgb(26, 127, 55)" || border[1] != "rgb(198, 40, 40)" {
		t.Errorf("borders %v (%v), want green for success and red for errors", border, err)
	}

	// The Excel download opens, with a row per case.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("download-xlsx"))); err != nil {
		t.Fatal(err)
	}
	var file string
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("download: %v", err)
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			file = filepath.Join(downloads, ev.GUID)
			break
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			t.Fatal("the browser canceled the download")
		}
	}
	x, err := excelize.OpenFile(file)
	if err != nil {
		t.Fatalf("open the downloaded workbook: %v", err)
	}
	rows, err := x.GetRows("Cases")
	x.Close()
	if err != nil || len(rows) != 9 {
		t.Fatalf("downloaded Cases sheet: %d rows (%v), want a header and 8 cases", len(rows), err)
	}

	// Past runs list this one.
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.querySelectorAll("#runs tr").length === 1`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("past runs: %v", err)
	}

	// Readable at a phone's width: nothing wider than the screen.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 740)); err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
	if err != nil || !wide {
		t.Errorf("the page is wider than a 375 px screen (%v)", err)
	}
	if p := b.consoleErrors(); len(p) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(p, "\n"))
	}
}

// TestBrowser_Token checks that a server started with a token makes the page ask for
// it once, and that the page then works with it.
func TestBrowser_Token(t *testing.T) {
	b := MustBrowser(t)
	ts := MustServer(t, func(c *server.Config) {
		c.Token = testToken
		c.Suites = map[string]string{"live": liveSuite}
	})
	if err := chromedp.Do(b.ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), testToken+kb.Enter),
		chromedp.WaitNotVisible(chromedp.ID("token-form")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#suite-select option").length === 2`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Click(chromedp.ID("start")),
		chromedp.WaitVisible(chromedp.ID("summary"), chromedp.NodeVisible),
	); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	if s, e := b.text(t, "success-count"), b.text(t, "error-count"); s != "5" || e != "3" {
		t.Errorf("Success (%s) and Error (%s), want 5 and 3", s, e)
	}
	if p := b.consoleErrors(); len(p) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(p, "\n"))
	}
}

// TestBrowser_ScoreLineSaysWhy checks the page's verdict line on the cases the audit
// found misleading: a total at or above the threshold that fails for another reason
// names that reason (never "<threshold"), and the weights shown are those the total used.
func TestBrowser_ScoreLineSaysWhy(t *testing.T) {
	b := MustBrowser(t)
	ts := MustServer(t, nil)
	if err := chromedp.Do(b.ctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.ID("start-form"))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
			state.threshold = 0.9;
			state.weights = {schema_match: 0.25, semantic_similarity: 0.25, results_match: 0.25, llm_grading: 0.25};
			const m = (s) => ({score: s});
			return [
				scoreLine({status: "FAIL", total_score: 0.925, reason: "the results do not match (pass_requires: [execution])"}),
				scoreLine({status: "FAIL", total_score: 0.5, reason: "total score 50.0% is below the threshold 90.0%"}),
				scoreLine({status: "PASS", total_score: 0.8999999999999999}),
				scoreLine({status: "ERROR", total_score: null, reason: "no database"}),
				componentLine({metrics: {schema_match: m(1), semantic_similarity: m(0.7), results_match: m(1), llm_grading: {skipped: "no judge"}}}),
			];
		})()`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Score: 92.5% (FAIL: the results do not match (pass_requires: [execution]))",
		"Score: 50% (FAIL <90%)",
		"Score: 90% (PASS ≥90%)",
		"Score: n/a (ERROR: no database)",
		"Schema: 100% ×33.3% | Semantic: 70% ×33.3% | Results: 100% ×33.3% | LLM: skipped",
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("line %d: got %q, want %q", i, got, want[i])
		}
	}
}
