package metric

import (
	"context"
	"strings"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/validate"

	"github.com/qeval/qeval/internal/lexbyte"
)

// Validation outcomes of one case. The positive class is "rejected".
const (
	CorrectAcceptance = "correct acceptance" // valid and should pass
	CorrectRejection  = "correct rejection"  // invalid and should not pass
	FalseRejection    = "false rejection"    // invalid but should pass
	FalseAcceptance   = "false acceptance"   // valid but should not pass
)

// Error categories of a rejected (or wrongly accepted) query.
const (
	CategorySyntax = "syntax"
	CategorySchema = "schema"
	CategorySafety = "safety"
	CategoryOther  = "other"
)

// ValidationAccuracy scores the validator's verdict isValid against the expectation
// shouldPass: 1 when they agree, else 0, with the outcome "type" (one of the four
// constants above).
//
// For every outcome but a correct acceptance it names the error category (syntax,
// schema, safety or other) of the query:
//   - validator_category comes from the validator's messages (CategorizeMessage on
//     each; the first message that is not "other" decides);
//   - reference_category comes from qeval's own reference check of the generated query
//     (ref, nil when not run): the category of its first problem;
//   - category is the validator's when it rejected the query with a recognisable
//     message, else the reference check's, else "other". For a false acceptance the
//     validator said nothing, so the reference check decides.
func ValidationAccuracy(isValid, shouldPass bool, messages []string, ref *validate.Verdict) Result {
	d := make(map[string]any, 10)
	d["is_valid"], d["should_pass"] = isValid, shouldPass
	score := 0.0
	switch {
	case isValid && shouldPass:
		d["type"], score = CorrectAcceptance, 1
		return Scored(score, d)
	case !isValid && !shouldPass:
		d["type"], score = CorrectRejection, 1
	case !isValid && shouldPass:
		d["type"] = FalseRejection
	default:
		d["type"] = FalseAcceptance
	}
	vc := ""
	if !isValid {
		vc = CategorizeMessages(messages)
		d["validator_category"] = vc
		if len(messages) > 0 {
			d["validator_errors"] = messages
		}
	}
	rc := ""
	if ref != nil {
		if !ref.Valid {
			rc = ref.Category
			if len(ref.Problems) > 0 {
				rc = ref.Problems[0].Category
				probs := make([]string, len(ref.Problems))
				for i, p := range ref.Problems {
					probs[i] = p.Message
				}
				d["reference_problems"] = probs
			}
			if rc == "" {
				rc = CategoryOther
			}
		}
		d["reference_category"] = rc // "" when the reference check found no problem
	}
	cat := vc
	if cat == "" || cat == CategoryOther {
		if rc != "" {
			cat = rc
		} else {
			cat = CategoryOther
		}
	}
	d["category"] = cat
	d["category_name"] = CategoryName(cat)
	if d["type"] == FalseRejection {
		// the seed's hint: a correct query was rejected, a person should look at why
		d["hint"] = "investigation needed"
	}
	return Scored(score, d)
}

// CategoryName is a category as the seed's reports name it: "syntax error", "schema
// violation", "safety violation" (else "other").
func CategoryName(category string) string {
	switch category {
	case CategorySyntax:
		return "syntax error"
	case CategorySchema:
		return "schema violation"
	case CategorySafety:
		return "safety violation"
	}
	return "other"
}

// CategorizeMessages returns the category of the first message that CategorizeMessage
// recognises, else "other".
func CategorizeMessages(messages []string) string {
	for _, m := range messages {
		if c := CategorizeMessage(m); c != CategoryOther {
			return c
		}
	}
	return CategoryOther
}

// CategorizeMessage classifies one validator message by its words, in this order:
// clear syntax wording ("syntax error", "parse error", "unexpected token", ...) is
// syntax; a named missing table or column ("no such table", "unknown column", "does not
// exist") is schema; words about forbidden operations ("not allowed", "forbidden",
// "injection") or a writing SQL keyword as a whole word (DROP, DELETE, UPDATE, ...) are
// safety; then any mention of tables, columns or the schema is schema; then remaining
// parser wording ("expected", "near") is syntax; else other.
func CategorizeMessage(msg string) string {
	m := msg
	if hasUpper(msg) {
		m = strings.ToLower(msg)
	}
	switch {
	case containsAny(m, syntaxStrong):
		return CategorySyntax
	case containsAny(m, schemaStrong):
		return CategorySchema
	case containsAny(m, safetyPhrases) || containsWord(m, safetyKeywords):
		return CategorySafety
	case containsAny(m, schemaWeak):
		return CategorySchema
	case containsAny(m, syntaxWeak):
		return CategorySyntax
	}
	return CategoryOther
}

var (
	syntaxStrong = []string{"syntax", "parse error", "parsing", "unexpected token", "unexpected end",
		"unterminated", "incomplete input", "unrecognized token", "unrecognised token", "malformed", "invalid token"}
	schemaStrong = []string{"no such table", "no such column", "unknown table", "unknown column",
		"does not exist", "doesn't exist", "ambiguous column", "not in schema", "not in the schema"}
	safetyPhrases = []string{"unsafe", "not allowed", "forbidden", "denied", "prohibited", "not permitted",
		"blocked", "dangerous", "injection", "read-only", "readonly", "multiple statements", "stacked", "safety"}
	safetyKeywords = []string{"write", "writes", "drop", "delete", "insert", "update", "alter", "truncate",
		"grant", "revoke", "attach", "detach", "pragma", "create", "replace", "merge", "vacuum"}
	schemaWeak = []string{"not found", "schema", "table", "column", "relation", "field"}
	syntaxWeak = []string{"expected", "near", "unexpected", "invalid"}
)

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// containsWord reports whether s holds one of words with no letter, digit or
// underscore on either side (so "updated_at" is not "update").
func containsWord(s string, words []string) bool {
	for _, w := range words {
		for i := 0; ; {
			j := strings.Index(s[i:], w)
			if j < 0 {
				break
			}
			a, b := i+j, i+j+len(w)
			if (a == 0 || !lexbyte.IsWord(s[a-1])) && (b == len(s) || !lexbyte.IsWord(s[b])) {
				return true
			}
			i = a + 1
		}
	}
	return false
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' || s[i] >= 0x80 {
			return true
		}
	}
	return false
}

func validationAccuracy(_ context.Context, c *Case, _ *Options) (Result, error) {
	switch {
	case c.IsValid == nil && c.ShouldPass == nil:
		return Skip("no validator verdict (is_valid) and no expectation (should_pass)"), nil
	case c.IsValid == nil:
		return Skip("no validator verdict (is_valid)"), nil
	case c.ShouldPass == nil:
		return Skip("no expectation (should_pass)"), nil
	}
	var ref *validate.Verdict
	// The reference check only decides the category, which a correct acceptance has not.
	if !(*c.IsValid && *c.ShouldPass) && strings.TrimSpace(c.Generated) != "" && !strings.EqualFold(c.Dialect, qeval.DialectMalloy) {
		v := validate.Check(c.Generated, validate.Options{Dialect: c.Dialect, Schema: c.Schema, AllowTables: c.AllowTables})
		ref = &v
	}
	return ValidationAccuracy(*c.IsValid, *c.ShouldPass, c.ValidatorErrors, ref), nil
}

// ValidationSummary aggregates the validation_accuracy results of a suite: the
// confusion matrix with "rejected" as the positive class (TP correct rejection, FP
// false rejection, TN correct acceptance, FN false acceptance), accuracy with its
// bootstrap interval, and the number of cases per error category for each outcome.
type ValidationSummary struct {
	Confusion  Confusion                 `json:"confusion"`
	Accuracy   *float64                  `json:"accuracy"`
	AccuracyCI *Interval                 `json:"accuracy_ci"`
	Precision  *float64                  `json:"precision"`
	Recall     *float64                  `json:"recall"`
	Categories map[string]map[string]int `json:"categories"` // type → category → count
	Counted    int                       `json:"counted"`
}

// SummarizeValidation aggregates validation_accuracy results (skipped and failed ones
// are not counted).
func SummarizeValidation(results []Result, opt BootstrapOptions) ValidationSummary {
	s := ValidationSummary{Categories: map[string]map[string]int{}}
	flags := make([]pair, 0, len(results))
	for _, r := range results {
		typ, _ := r.Details["type"].(string)
		switch typ {
		case CorrectRejection:
			flags = append(flags, pair{true, true})
		case FalseRejection:
			flags = append(flags, pair{true, false})
		case CorrectAcceptance:
			flags = append(flags, pair{false, false})
		case FalseAcceptance:
			flags = append(flags, pair{false, true})
		default:
			continue
		}
		if cat, ok := r.Details["category"].(string); ok {
			if s.Categories[typ] == nil {
				s.Categories[typ] = map[string]int{}
			}
			s.Categories[typ][cat]++
		}
	}
	s.Confusion, s.AccuracyCI, _, _ = confusionWithCI(flags, BootstrapOptions{Resamples: -1})
	s.Counted = len(flags)
	s.Accuracy, s.Precision, s.Recall = s.Confusion.Accuracy(), s.Confusion.Precision(), s.Confusion.Recall()
	if s.Accuracy != nil && opt.Resamples >= 0 {
		iv := BootstrapProportion(s.Confusion.TP+s.Confusion.TN, s.Confusion.N(), opt)
		s.AccuracyCI = &iv
	}
	return s
}
