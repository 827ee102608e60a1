package execmatch

import (
	"math"
	"sort"
	"strings"
)

// PlugValues returns the predicted queries the official evaluator's --plug_value tries
// after the prediction as written: the prediction's literal slots (quoted strings and
// numbers outside names) filled with every assignment of the gold query's distinct
// literal values, in a fixed order, at most max of them. total is how many there are in
// all (len(gold values) ^ slots), so a caller can report that the cap was hit.
func PlugValues(gold, pred string, max int) (cands []string, total int) {
	// the official code plugs into the query with every semicolon and tab taken out
	gold, clean := plugText(gold), plugText(pred)
	values := uniqueValues(literals(gold), gold)
	slots := literals(clean)
	if len(slots) == 0 {
		// one way to fill no slot: the cleaned prediction, when cleaning changed it
		if clean == pred || max < 1 {
			return nil, 0
		}
		return []string{clean}, 1
	}
	if len(values) == 0 {
		return nil, 0
	}
	pred = clean
	t := math.Pow(float64(len(values)), float64(len(slots)))
	if t > math.MaxInt32 {
		total = math.MaxInt32
	} else {
		total = int(t)
	}
	idx := make([]int, len(slots))
	for len(cands) < max {
		var b strings.Builder
		last := 0
		for s, sp := range slots {
			b.WriteString(pred[last:sp.start])
			// the official code puts each value in as a token of its own: one that
			// replaces a signed number ("a-5") stays apart from what came before
			if pred[sp.start] == '-' && sp.start > 0 && !isSpace(pred[sp.start-1]) {
				b.WriteByte(' ')
			}
			b.WriteString(values[idx[s]])
			last = sp.end
		}
		b.WriteString(pred[last:])
		cands = append(cands, b.String())
		// next assignment, the last slot varying fastest (as itertools.product)
		k := len(idx) - 1
		for k >= 0 {
			idx[k]++
			if idx[k] < len(values) {
				break
			}
			idx[k] = 0
			k--
		}
		if k < 0 {
			break
		}
	}
	return cands, total
}

type span struct{ start, end int }

func uniqueValues(spans []span, q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range spans {
		v := q[s.start:s.end]
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// literals finds the value literals of a query: single- or double-quoted strings and
// numbers that are not part of a name (T1, col2).
func literals(q string) []span {
	var out []span
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j < len(q) {
				out = append(out, span{i, j + 1})
				i = j + 1
			} else {
				i = len(q)
			}
		case c == '`' || c == '[':
			end := byte('`')
			if c == '[' {
				end = ']'
			}
			j := strings.IndexByte(q[i+1:], end)
			if j < 0 {
				i = len(q)
			} else {
				i += j + 2
			}
		case isDigit(c) || (c == '.' && i+1 < len(q) && isDigit(q[i+1])):
			j := i
			for j < len(q) && (isDigit(q[j]) || q[j] == '.') {
				j++
			}
			switch {
			case j < len(q) && isNameByte(q[j]):
				exp := (q[j] == 'e' || q[j] == 'E') && j+2 < len(q) && (q[j+1] == '-' || q[j+1] == '+') && isDigit(q[j+2])
				for j < len(q) && isNameByte(q[j]) {
					j++
				}
				if exp && j == i+strings.IndexAny(q[i:], "eE")+1 {
					// 1e-5 is one number token, and no value to the official code
					for j++; j < len(q) && isDigit(q[j]); j++ {
					}
				}
			case q[j-1] == '.':
				// "1." is no value to the official code: its number patterns want a
				// digit after the point, and the digits before it are not the token
			default:
				start := i
				// a minus sign right before the digits is part of the number's token
				// (sqlparse reads "-5" as one), so the value replaces it too
				if start > 0 && q[start-1] == '-' && (start < 2 || q[start-2] != '-') {
					start--
				}
				out = append(out, span{start, j})
			}
			i = j
		case isNameByte(c):
			for i < len(q) && isNameByte(q[i]) {
				i++
			}
		default:
			i++
		}
	}
	return out
}

// plugText is the query the official code finds the values of and plugs them into:
// trimmed, with every semicolon and tab removed.
func plugText(q string) string {
	return strings.NewReplacer(";", "", "\t", "").Replace(strings.TrimSpace(q))
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isNameByte(c byte) bool {
	return c == '_' || c == '$' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}
