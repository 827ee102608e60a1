package suite

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/qeval/qeval/internal/lines"

	"github.com/qeval/qeval"
)

// Spider is a gold file and a predictions file in the official Spider evaluator's
// formats, paired line by line.
type Spider struct {
	// Items are the non-blank gold lines in order; Item.Index counts them from 0.
	Items []qeval.Item
	// Interactions lists the item indices of each interaction (SParC/CoSQL files separate
	// interactions with blank lines; a Spider file is one interaction). Consecutive blank
	// lines make empty interactions, as they do for the official evaluator.
	Interactions [][]int
	// Interaction and Turn give, for each item, its interaction and 0-based turn.
	Interaction []int
	Turn        []int
	// MultiTurn is set for a file of several interactions (SParC, CoSQL): its scores
	// have turns and joint accuracy. A shard of it stays multi-turn.
	MultiTurn bool
}

type line struct {
	text string
	num  int
}

// readSessions reads a file the way the official evaluator does: lines stripped of
// surrounding white space, blank lines closing an interaction.
func readSessions(path, flag string) ([][]line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &qeval.Error{Code: qeval.CodeNotFound, Op: "open " + flag + " " + path, Message: "no such file", Err: err}
	}
	defer f.Close()
	var sessions [][]line
	var cur []line
	sc := lines.New(f)
	n := 0
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			sessions = append(sessions, cur)
			cur = nil
			continue
		}
		cur = append(cur, line{t, n})
	}
	if err := sc.Err(); err != nil {
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Op: "read " + flag + " " + path, Message: fmt.Sprintf("line %d: %v", n+1, err), Err: err}
	}
	if len(cur) > 0 {
		sessions = append(sessions, cur)
	}
	return sessions, nil
}

// LoadSpider reads a gold file (`SQL<TAB>db_id` per line) and a predictions file (one
// query per line; anything after a TAB is ignored, as the official evaluator does).
// Mismatched counts are an error naming both counts.
func LoadSpider(goldPath, predPath string) (*Spider, error) {
	gold, err := readSessions(goldPath, "--gold")
	if err != nil {
		return nil, err
	}
	pred, err := readSessions(predPath, "--pred")
	if err != nil {
		return nil, err
	}
	count := func(s [][]line) int {
		n := 0
		for _, x := range s {
			n += len(x)
		}
		return n
	}
	if len(gold) != len(pred) || count(gold) != count(pred) {
		return nil, &qeval.Error{Code: qeval.CodeInvalid,
			Message: fmt.Sprintf("--pred %s has %d queries in %d interactions but --gold %s has %d queries in %d interactions",
				predPath, count(pred), len(pred), goldPath, count(gold), len(gold)),
			Hint: "line i of --pred must be the prediction for line i of --gold, with blank lines in the same places"}
	}
	var problems []string
	s := &Spider{}
	for si, sess := range gold {
		if len(sess) != len(pred[si]) {
			problems = append(problems, fmt.Sprintf("interaction %d has %d gold queries (%s:%d) but %d predictions",
				si+1, len(sess), goldPath, firstLine(sess), len(pred[si])))
			continue
		}
		var idx []int
		for ti, g := range sess {
			fields := strings.Split(g.text, "\t")
			if len(fields) != 2 {
				problems = append(problems, fmt.Sprintf("%s:%d: want `SQL<TAB>db_id`, found %d TAB-separated fields", goldPath, g.num, len(fields)))
				continue
			}
			p := strings.Split(pred[si][ti].text, "\t")[0]
			i := len(s.Items)
			s.Items = append(s.Items, qeval.Item{Index: i, ID: fmt.Sprint(i), DBID: strings.TrimSpace(fields[1]),
				Gold: fields[0], Pred: p})
			s.Interaction = append(s.Interaction, si)
			s.Turn = append(s.Turn, ti)
			idx = append(idx, i)
		}
		s.Interactions = append(s.Interactions, idx)
	}
	if len(problems) > 0 {
		msg := "the gold and prediction files do not pair up:"
		for _, p := range problems {
			msg += "\n  - " + p
		}
		return nil, &qeval.Error{Code: qeval.CodeInvalid, Message: msg}
	}
	s.MultiTurn = len(s.Interactions) > 1
	return s, nil
}

func firstLine(s []line) int {
	if len(s) == 0 {
		return 0
	}
	return s[0].num
}

// DBIDs returns the distinct db_ids of the items, sorted.
func (s *Spider) DBIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range s.Items {
		if !seen[it.DBID] {
			seen[it.DBID] = true
			out = append(out, it.DBID)
		}
	}
	sort.Strings(out)
	return out
}
