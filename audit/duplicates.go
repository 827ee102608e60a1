package audit

import (
	"strings"
	"unicode"
)

// duplicateEvidence lists the other items with the same gold or the same question.
type duplicateEvidence struct {
	SameGold     []other `json:"same_gold,omitempty"`     // same database and gold (up to spacing and case)
	SameQuestion []other `json:"same_question,omitempty"` // same database and question, another gold
}

type other struct {
	Index    int    `json:"index"`
	Question string `json:"question,omitempty"`
	Gold     string `json:"gold,omitempty"`
}

// duplicates flags items whose gold another item of the same database also has, or
// whose question another item asks with another gold. The golds of one suite case
// (items sharing its Index) answer the same question by design: they are not
// duplicates of each other.
func duplicates(items []Item, fs []Finding) {
	byGold := map[string][]int{}
	byQuestion := map[string][]int{}
	gk := make([]string, len(items))
	qk := make([]string, len(items))
	for i, it := range items {
		if strings.TrimSpace(it.Gold) != "" {
			gk[i] = it.DBID + "\x00" + normalSQL(it.Gold)
			byGold[gk[i]] = append(byGold[gk[i]], i)
		}
		if q := normalQuestion(it.Question); q != "" {
			qk[i] = it.DBID + "\x00" + q
			byQuestion[qk[i]] = append(byQuestion[qk[i]], i)
		}
	}
	for i := range items {
		var ev duplicateEvidence
		if gk[i] != "" {
			for _, j := range byGold[gk[i]] {
				if items[j].Index != items[i].Index {
					ev.SameGold = append(ev.SameGold, other{Index: items[j].Index, Question: items[j].Question})
				}
			}
		}
		if qk[i] != "" {
			for _, j := range byQuestion[qk[i]] {
				if items[j].Index != items[i].Index && gk[j] != gk[i] {
					ev.SameQuestion = append(ev.SameQuestion, other{Index: items[j].Index, Gold: items[j].Gold})
				}
			}
		}
		if len(ev.SameGold) > 0 || len(ev.SameQuestion) > 0 {
			fs[i].flag(Duplicate, ev)
		}
	}
}

// normalSQL is a query's text with case folded and spacing normalised outside quotes,
// and a final semicolon dropped, so that two ways of writing the same text meet.
func normalSQL(q string) string {
	var b strings.Builder
	space := false
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		if quote != 0 {
			b.WriteByte(c)
			if c == quote {
				quote = 0
			}
			continue
		}
		switch {
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			space = true
			continue
		}
		if space && b.Len() > 0 && !strings.ContainsRune("(),=<>!", rune(c)) && !strings.ContainsRune("(,=<>!", rune(last(&b))) {
			b.WriteByte(' ')
		}
		space = false
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return strings.TrimRight(b.String(), "; ")
}

func last(b *strings.Builder) byte {
	s := b.String()
	if s == "" {
		return 0
	}
	return s[len(s)-1]
}

// normalQuestion folds case, punctuation and spacing of a question.
func normalQuestion(q string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
