package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qeval/qeval/server"
)

// sectionState is what the page shows of the Success or Error section.
type sectionState struct {
	Open   bool   `json:"open"`
	Count  string `json:"count"`
	Cards  int    `json:"cards"`
	More   bool   `json:"more"`
	Button string `json:"button"`
}

func section(t *testing.T, b *browserSession, name string) sectionState {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[sectionState](`(() => {
		const more = document.getElementById("`+name+`-more");
		return {open: document.getElementById("`+name+`-group").open, count: document.getElementById("`+name+`-count").textContent,
			cards: document.querySelectorAll("#`+name+`-list li").length, more: !!more && !more.hidden, button: more ? more.textContent : ""};
	})()`))
	if err != nil {
		t.Fatalf("the %s section: %v", name, err)
	}
	return s
}

// openSection opens the Success or Error section as a person would and waits for
// its first cards.
func openSection(t *testing.T, b *browserSession, name string, cards int) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Click(chromedp.CSS("#"+name+"-group > summary"))); err != nil {
		t.Fatalf("open the %s section: %v", name, err)
	}
	poll[bool](t, b, "the "+name+" section's first cards", `document.querySelectorAll("#`+name+`-list li").length === `+strconv.Itoa(cards))
}

// The Success and Error sections under the case table are collapsed to their count; an
// opened one draws its first 20 cards and the rest on demand, so the 56-case example's
// run view fits in 6,000 px (it was 15,800 px with every card drawn: issue 38).
func TestBrowser_SectionsCollapsed(t *testing.T) {
	ts := MustServer(t, nil)
	id := startRun(t, ts, readFile(t, "../examples/chinook/suite.yaml"), "application/yaml")
	waitRun(t, ts, id)
	var table server.Table
	do(t, http.MethodGet, ts.URL+"/api/runs/"+id+"/rows", nil).json(t, &table)
	var ok, bad []string
	for _, r := range table.Rows {
		if r.Status == "PASS" {
			ok = append(ok, r.ID)
		} else {
			bad = append(bad, r.ID)
		}
	}
	if len(table.Rows) != 56 || len(ok) <= 20 || len(bad) <= 20 {
		t.Fatalf("the example has %d cases, %d passed: this test needs more than 20 of each", len(table.Rows), len(ok))
	}

	b := MustBrowser(t)
	if err := chromedp.Do(b.ctx, chromedp.Navigate(ts.URL+"/runs/"+id)); err != nil {
		t.Fatal(err)
	}
	rowsShown(t, b, "the table", 56, 56)
	for name, ids := range map[string][]string{"success": ok, "error": bad} {
		if s := section(t, b, name); s.Open || s.Count != strconv.Itoa(len(ids)) || s.Cards != 0 || s.More {
			t.Errorf("%s section at first: %+v, want closed with the count %d and no card drawn", name, s, len(ids))
		}
	}
	height := poll[int](t, b, "the page's height", `document.documentElement.scrollHeight`)
	t.Logf("the 56-case run view: %d px high with the sections collapsed", height)
	if height > 6000 {
		t.Errorf("the run view is %d px high, want at most 6,000", height)
	}

	for name, ids := range map[string][]string{"success": ok, "error": bad} {
		openSection(t, b, name, 20)
		s := section(t, b, name)
		rest := len(ids) - 20
		want := "Show the other " + strconv.Itoa(rest) + " case"
		if !s.Open || !s.More || !strings.HasPrefix(s.Button, want) || !strings.Contains(s.Button, "first 20 of "+strconv.Itoa(len(ids))) {
			t.Errorf("%s section opened: %+v, want 20 cards and a button %q…", name, s, want)
		}
		first := b.eval(t, `[...document.querySelectorAll("#`+name+`-list li")].map((li) => li.dataset.id).join(" ")`)
		if first != strings.Join(ids[:20], " ") {
			t.Errorf("%s section's cards: %s, want the first 20 in run order: %s", name, first, strings.Join(ids[:20], " "))
		}
		if err := chromedp.Do(b.ctx, chromedp.Click(chromedp.ID(name+"-more"))); err != nil {
			t.Fatal(err)
		}
		all := poll[string](t, b, "the rest of the "+name+" section", `document.querySelectorAll("#`+name+`-list li").length === `+strconv.Itoa(len(ids))+
			` && [...document.querySelectorAll("#`+name+`-list li")].map((li) => li.dataset.id).join(" ")`)
		if all != strings.Join(ids, " ") {
			t.Errorf("%s section after the button: %s, want every case in run order", name, all)
		}
		if s := section(t, b, name); s.More {
			t.Errorf("%s section: the button stays after showing every case", name)
		}
	}
	t.Logf("with both sections open and whole: %d px", poll[int](t, b, "the page's height", `document.documentElement.scrollHeight`))
	if p := b.consoleErrors(); len(p) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(p, "\n"))
	}
}
