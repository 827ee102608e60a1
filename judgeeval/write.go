package judgeeval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/judge"
)

// SetJudge names the judge measured, with what it cost.
func (r *Result) SetJudge(provider, model string, st qeval.JudgeStats) {
	version, _ := judge.PromptVersion(qeval.TaskQueryCorrectness)
	r.Judge = &qeval.JudgeInfo{Provider: provider, Model: model, PromptVersion: version,
		Calls: int(st.Calls), CacheHits: int(st.CacheHits), TokensIn: int(st.InputTokens), TokensOut: int(st.OutputTokens)}
}

// Write writes the result as JSON (asJSON) or as text.
func (r *Result) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		return r.WriteJSON(w)
	}
	return r.WriteText(w)
}

// WriteJSON writes the result as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes the result for a terminal: the measures, the confusion matrix and
// the recall per error class.
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	judge := "(unnamed)"
	if j := r.Judge; j != nil {
		judge = j.Provider + " " + j.Model + ", prompt " + j.PromptVersion
	}
	fmt.Fprintf(bw, "Judge %s on %d labels: %d judged, %d judge errors (left out)\n\n", judge, r.Labels, r.Judged, r.Errors)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Measure\tvalue\t95% interval\tn")
	if a := r.Accuracy; a != nil {
		fmt.Fprintf(tw, "  accuracy\t%s\t[%s, %s]\t%d\n", pct(&a.Value), pct(&a.Low), pct(&a.High), a.N)
	}
	fmt.Fprintf(tw, "  Cohen's κ\t%s\t\t%d\n", num(r.Kappa), r.Judged)
	d := r.Incorrect
	fmt.Fprintf(tw, "  precision of incorrect\t%s\t\t%d\n", pct(d.Precision), d.TP+d.FP)
	fmt.Fprintf(tw, "  recall of incorrect\t%s\t\t%d\n", pct(d.Recall), d.TP+d.FN)
	fmt.Fprintln(tw, "\nLabel \\ verdict\tcorrect\tpartially_correct\tincorrect")
	for i, v := range Verdicts {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\n", v, r.Confusion[i][0], r.Confusion[i][1], r.Confusion[i][2])
	}
	if len(r.ByClass) > 0 {
		fmt.Fprintln(tw, "\nIncorrect, by error class\tcaught\trecall\t95% interval")
		for _, c := range r.ByClass {
			fmt.Fprintf(tw, "  %s\t%d of %d\t%s\t[%s, %s]\n", c.Class, c.Caught, c.N, pct(&c.Recall.Value), pct(&c.Recall.Low), pct(&c.Recall.High))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	shown := 0
	for _, it := range r.Items {
		if it.Error == "" {
			continue
		}
		if shown == 0 {
			fmt.Fprintln(bw, "\nJudge errors:")
		}
		if shown++; shown > 10 {
			fmt.Fprintf(bw, "  … and %d more (every one is in --json)\n", r.Errors-10)
			break
		}
		fmt.Fprintf(bw, "  %s: %s\n", where(it), it.Error)
	}
	if j := r.Judge; j != nil {
		fmt.Fprintf(bw, "\nJudge: %d calls, %d cache hits, %d tokens in, %d tokens out\n", j.Calls, j.CacheHits, j.TokensIn, j.TokensOut)
	}
	return bw.Flush()
}

func where(it Item) string {
	switch {
	case it.ID != "":
		return it.ID
	case it.Line > 0:
		return "line " + strconv.Itoa(it.Line)
	}
	return "?"
}

func pct(x *float64) string {
	if x == nil {
		return "—"
	}
	return strconv.FormatFloat(*x*100, 'f', 1, 64) + "%"
}

func num(x *float64) string {
	if x == nil {
		return "— (undefined)"
	}
	return strconv.FormatFloat(*x, 'f', 3, 64)
}
