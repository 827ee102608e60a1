package metric

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
)

// normName returns the comparable form of a table or column name: lower case, without
// quoting ("x", `x`, [x]) and without qualifiers (main.users → users, T1.name → name).
// An expression (count(*), avg(T1.age)) keeps its qualifiers and loses its spaces.
func normName(s string) string {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "()*+-/,<>=| ") && !isQuoted(s) {
		return strings.ToLower(strings.Join(strings.Fields(s), ""))
	}
	if i := lastDotOutsideQuotes(s); i >= 0 {
		s = s[i+1:]
	}
	s = unquote(s)
	return strings.ToLower(s)
}

func isQuoted(s string) bool { return len(s) >= 2 && unquote(s) != s }

func lastDotOutsideQuotes(s string) int {
	var q byte
	last := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '`' || c == '\'':
			q = c
		case c == '[':
			q = ']'
		case c == '.':
			last = i
		}
	}
	return last
}

// unquote strips one level of SQL or KQL identifier/string quoting.
func unquote(s string) string {
	if len(s) >= 2 {
		f, l := s[0], s[len(s)-1]
		if (f == '"' && l == '"') || (f == '`' && l == '`') || (f == '\'' && l == '\'') || (f == '[' && l == ']') {
			return s[1 : len(s)-1]
		}
	}
	return s
}

// nameSet is a set of normalised names that remembers the first spelling seen.
type nameSet struct {
	keys  []string
	index map[string]int
}

func newNameSet(names []string) *nameSet {
	s := &nameSet{index: make(map[string]int, len(names))}
	for _, n := range names {
		s.add(n)
	}
	return s
}

func (s *nameSet) add(n string) {
	k := normName(n)
	if k == "" {
		return
	}
	if _, ok := s.index[k]; !ok {
		s.index[k] = len(s.keys)
		s.keys = append(s.keys, k)
	}
}

func (s *nameSet) has(k string) bool { _, ok := s.index[k]; return ok }

// jaccard returns |a∩b|/|a∪b| over normalised keys (1 when both are empty), with the
// keys of the intersection, of a only and of b only, each in first-seen order.
func jaccard(a, b *nameSet) (score float64, both, onlyA, onlyB []string) {
	both, onlyA, onlyB = []string{}, []string{}, []string{}
	for _, k := range a.keys {
		if b.has(k) {
			both = append(both, k)
		} else {
			onlyA = append(onlyA, k)
		}
	}
	for _, k := range b.keys {
		if !a.has(k) {
			onlyB = append(onlyB, k)
		}
	}
	union := len(both) + len(onlyA) + len(onlyB)
	if union == 0 {
		return 1, both, onlyA, onlyB
	}
	return float64(len(both)) / float64(union), both, onlyA, onlyB
}

// jaccardKeys is jaccard on plain string sets (keys already normalised).
func jaccardKeys(a, b []string) float64 {
	sa := make(map[string]bool, len(a))
	for _, k := range a {
		sa[k] = true
	}
	sb := make(map[string]bool, len(b))
	for _, k := range b {
		sb[k] = true
	}
	inter := 0
	for k := range sa {
		if sb[k] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// normValue renders a cell as the string rows are compared on: NULL is "null"; numbers
// (and text that parses as a number) in a canonical form, whole numbers without a
// fraction and others rounded to 6 decimal places; booleans "true"/"false"; text trimmed
// and lower-cased; times in RFC 3339 UTC.
func normValue(v qeval.Value) string {
	switch v.Kind {
	case qeval.KindNull:
		return "null"
	case qeval.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case qeval.KindFloat:
		return normFloat(v.Float)
	case qeval.KindBool:
		if v.Int != 0 {
			return "true"
		}
		return "false"
	case qeval.KindTime:
		return v.AsTime().Format(time.RFC3339Nano)
	case qeval.KindBytes:
		return normText(v.Str)
	}
	return normText(v.Str)
}

func normText(s string) string {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil && s != "" && !strings.ContainsAny(s, "xXpP_") {
		return normFloat(f)
	}
	return strings.ToLower(s)
}

func normFloat(f float64) string {
	if math.IsNaN(f) {
		return "nan"
	}
	if math.IsInf(f, 0) {
		if f > 0 {
			return "inf"
		}
		return "-inf"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	s := strconv.FormatFloat(f, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}
