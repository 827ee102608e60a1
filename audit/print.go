package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// ItemLine is one line of qeval audit --items.
type ItemLine struct {
	Index    int            `json:"index"`
	DBID     string         `json:"db_id"`
	Flags    []string       `json:"flags"`
	Evidence map[string]any `json:"evidence"`
	Ref      string         `json:"ref,omitempty"`
	Question string         `json:"question,omitempty"`
	Gold     string         `json:"gold"`
}

// WriteItems writes one JSON line per audited item: its flags and their evidence.
func (rep *Report) WriteItems(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, f := range rep.Items {
		if err := enc.Encode(ItemLine{Index: f.Index, DBID: f.DBID, Flags: f.Flags, Evidence: f.Evidence, Ref: f.Ref, Question: f.Question, Gold: f.Gold}); err != nil {
			return err
		}
	}
	return nil
}

// Print prints the counts per flag, then one line per listed item.
func (rep *Report) Print(w io.Writer, show []string) {
	fmt.Fprintf(w, "Gold audit: %d items, %.2f s\n%s\n\n", rep.Total, rep.Seconds, rep.Headline())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "flag\titems\tkind\tmeaning")
	for _, f := range Flags {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", f.Name, rep.Counts[f.Name], f.Kind, f.Doc)
	}
	tw.Flush()
	listed := show
	if len(listed) == 0 {
		for _, f := range Flags {
			if f.Name != Duplicate {
				listed = append(listed, f.Name)
			}
		}
	}
	sel := rep.Select(listed...)
	if len(sel) == 0 {
		return
	}
	fmt.Fprintf(w, "\nItems with %s:\n", strings.Join(listed, ", "))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "index\tdb_id\tflags\tevidence")
	for _, f := range sel {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", f.Index, f.DBID, strings.Join(f.Flags, ","), evidenceLine(f, listed))
	}
	tw.Flush()
	if len(show) == 0 && rep.Counts[Duplicate] > 0 {
		fmt.Fprintf(w, "\n%d items are duplicates (--show duplicate lists them; --items has the evidence of every flag)\n", rep.Counts[Duplicate])
	}
}

// evidenceLine summarises the evidence of the first listed flag of an item on one line.
func evidenceLine(f Finding, listed []string) string {
	for _, name := range listed {
		ev, ok := f.Evidence[name]
		if !ok {
			continue
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(ev) != nil {
			continue
		}
		s := strings.TrimSpace(b.String())
		if len(s) > 120 {
			s = s[:117] + "..."
		}
		return name + " " + s
	}
	keys := make([]string, 0, len(f.Evidence))
	for k := range f.Evidence {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// Headline counts the items whose gold cannot be trusted apart from the duplicates,
// which are often intended: "2 with gold a verdict cannot be trusted against; 46
// duplicates of another item (often intended: the same question in other words)".
func (rep *Report) Headline() string {
	return fmt.Sprintf("%d with gold a verdict cannot be trusted against; %d %s of another item (often intended: the same question in other words, or one gold for several questions)",
		rep.Untrustworthy, rep.Counts[Duplicate], plural(rep.Counts[Duplicate], "duplicate", "duplicates"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
