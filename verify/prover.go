package verify

import (
	"context"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/testsuite"
)

// Prover is the complete check of a pair: whether any database of the schema with up
// to Bound rows per table tells the two queries apart. It must return when ctx ends,
// and be safe for concurrent use.
type Prover interface {
	Prove(ctx context.Context, r ProveRequest) Proof
}

// ProveRequest is one pair for a Prover.
type ProveRequest struct {
	Schema *Schema
	// Gold and Pred are the queries as executed (after the mode's rewrite); Ordered
	// says whether row order is compared.
	Gold, Pred string
	Ordered    bool
	Bound      int
	// Rule is how results are compared: RuleSpider (the official Spider rules: bags,
	// lists when ordered, any column order) or RuleSet (BIRD's: sets of rows, columns in
	// order). A Prover answers Unsupported for a rule it does not model.
	Rule string
}

// The comparison rules a Prover is asked for (see RuleOf).
const (
	RuleSpider = "spider"
	RuleSet    = "set"
)

// RuleOf is the rule of a comparison mode the complete check models, "" for a mode it
// does not (whose proof would not hold under that mode's comparison).
func RuleOf(mode string) string {
	switch mode {
	case "spider-ts":
		return RuleSpider
	case "bird-ex":
		return RuleSet
	}
	return ""
}

// Proof is a Prover's answer: Equivalent (no database up to the bound tells them
// apart), Differ (one does: the solver found it), Unsupported (a construct outside the
// encoding, named), or none of them with Error (the solver gave up: a timeout, its
// memory).
type Proof struct {
	Equivalent  bool
	Differ      bool
	Unsupported string
	Error       string
	// Note qualifies a proof (what it assumes of the databases).
	Note string
	// Rows, with Differ, are the rows of the database the solver found, by lower-case
	// table name, a value per column (the verifier writes and confirms them).
	Rows map[string][][]qeval.Value
}

// Schema is a database's tables as the complete check models them.
type Schema struct {
	Tables []testsuite.TableInfo
}

func schemaOf(o *testsuite.Original) *Schema {
	return &Schema{Tables: o.Tables()}
}
