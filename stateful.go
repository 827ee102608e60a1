package qeval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// A stateful case scores an answer that changes data: it runs in a disposable copy of
// the database (one for the gold, one for the generated answer), after the case's
// Setup, and is judged by its Checks (queries run after the answer), by the tables it
// leaves behind (CompareState) and their definitions (CompareSchema), and optionally by
// its plan cost (Efficiency). Its expected and generated queries may hold several
// statements. See docs/stateful.md.

// Stateful reports whether the case is a stateful one: it names a setup, checks, a
// state or schema comparison, a teardown or an efficiency bound.
func (c *Case) Stateful() bool {
	return c.IsStateful || len(c.Setup) > 0 || len(c.Checks) > 0 || c.CompareState != nil || c.CompareSchema ||
		len(c.Teardown) > 0 || c.Efficiency != nil
}

// StatefulSpec is what makes a case, or an exec-match pair, stateful: the case's
// fields of the same names (Case.Spec gives them).
type StatefulSpec struct {
	Setup         Statements    `json:"setup,omitempty"`
	Checks        Statements    `json:"checks,omitempty"`
	CompareState  *StateCompare `json:"compare_state,omitempty"`
	CompareSchema bool          `json:"compare_schema,omitempty"`
	Teardown      Statements    `json:"teardown,omitempty"`
	Efficiency    *Efficiency   `json:"efficiency,omitempty"`
	// Stateful makes it stateful when nothing else does (Case.IsStateful).
	Stateful bool `json:"stateful,omitempty"`
}

// IsSet reports whether the spec makes anything stateful.
func (s StatefulSpec) IsSet() bool {
	c := Case{Setup: s.Setup, Checks: s.Checks, CompareState: s.CompareState, CompareSchema: s.CompareSchema, Teardown: s.Teardown, Efficiency: s.Efficiency, IsStateful: s.Stateful}
	return c.Stateful()
}

// Problems are what is wrong with the spec, each naming its field (Case.CheckStateful).
func (s StatefulSpec) Problems() []string {
	c := Case{Setup: s.Setup, Checks: s.Checks, CompareState: s.CompareState, CompareSchema: s.CompareSchema, Teardown: s.Teardown, Efficiency: s.Efficiency}
	return c.CheckStateful()
}

// Spec is the case's stateful fields, nil for a read-only case.
func (c *Case) Spec() *StatefulSpec {
	if !c.Stateful() {
		return nil
	}
	return &StatefulSpec{Setup: c.Setup, Checks: c.Checks, CompareState: c.CompareState, CompareSchema: c.CompareSchema,
		Teardown: c.Teardown, Efficiency: c.Efficiency, Stateful: c.IsStateful}
}

// Statements are SQL texts, each holding one statement or several separated by
// semicolons: a suite writes one text or a list of them. They are cut into statements
// by the engine's dialect when they run.
type Statements []string

// UnmarshalJSON reads a string or a list of strings.
func (s *Statements) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*s = Statements{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return &Error{Code: CodeInvalid, Message: "must be a string of statements or a list of them, not " + JSONValueKind(JSONKind(b))}
	}
	*s = list
	return nil
}

// UnmarshalYAML reads a string or a list of strings.
func (s *Statements) UnmarshalYAML(unmarshal func(any) error) error {
	var one string
	if err := unmarshal(&one); err == nil {
		*s = Statements{one}
		return nil
	}
	var list []string
	if err := unmarshal(&list); err != nil {
		return &Error{Code: CodeInvalid, Message: "must be a string of statements or a list of them"}
	}
	*s = list
	return nil
}

// StateCompare says which tables a stateful case compares after the gold and after
// the generated answer: all of them or the ones named, as bags of rows or, when
// Ordered, in order (SQLite's rowid order, else the primary key's, else all columns').
type StateCompare struct {
	All     bool
	Tables  []string
	Ordered bool
}

// stateCompareForm is the mapping form: {tables: all | [t, …], ordered: true}.
type stateCompareForm struct {
	Tables  any  `json:"tables" yaml:"tables"`
	Ordered bool `json:"ordered" yaml:"ordered"`
}

const stateCompareHelp = "must be all, a list of tables, or {tables: all or a list, ordered: true}"

// set reads one of the forms, decoded as plain values.
func (sc *StateCompare) set(v any) error {
	switch t := v.(type) {
	case string:
		if !strings.EqualFold(strings.TrimSpace(t), "all") {
			return &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s, not %q", stateCompareHelp, t)}
		}
		*sc = StateCompare{All: true}
		return nil
	case []any:
		if len(t) == 0 {
			return &Error{Code: CodeInvalid, Message: "is an empty list: name a table, or write all"}
		}
		out := StateCompare{}
		for i, x := range t {
			name, ok := x.(string)
			if !ok || strings.TrimSpace(name) == "" {
				return &Error{Code: CodeInvalid, Message: fmt.Sprintf("item %d must be a table name", i+1)}
			}
			out.Tables = append(out.Tables, strings.TrimSpace(name))
		}
		*sc = out
		return nil
	case map[string]any:
		for k := range t {
			if k != "tables" && k != "ordered" {
				return &Error{Code: CodeInvalid, Message: fmt.Sprintf("unknown field %q (known: ordered, tables)", k)}
			}
		}
		if t["tables"] == nil {
			return &Error{Code: CodeInvalid, Message: "has no tables (all, or a list)"}
		}
		if err := sc.set(t["tables"]); err != nil {
			return err
		}
		if o, ok := t["ordered"]; ok {
			b, isBool := o.(bool)
			if !isBool {
				return &Error{Code: CodeInvalid, Message: "field ordered must be true or false"}
			}
			sc.Ordered = b
		}
		return nil
	}
	return &Error{Code: CodeInvalid, Message: stateCompareHelp}
}

// UnmarshalJSON reads all, a list of tables or {tables, ordered}.
func (sc *StateCompare) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return sc.set(v)
}

// UnmarshalYAML reads all, a list of tables or {tables, ordered}.
func (sc *StateCompare) UnmarshalYAML(unmarshal func(any) error) error {
	var v any
	if err := unmarshal(&v); err != nil {
		return err
	}
	return sc.set(plainYAML(v))
}

// plainYAML turns the map[any]any a YAML decoder may give into map[string]any.
func plainYAML(v any) any {
	switch t := v.(type) {
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = plainYAML(x)
		}
		return out
	case map[string]any:
		for k, x := range t {
			t[k] = plainYAML(x)
		}
	case []any:
		for i, x := range t {
			t[i] = plainYAML(x)
		}
	}
	return v
}

// MarshalJSON writes the shortest form that says the same.
func (sc StateCompare) MarshalJSON() ([]byte, error) {
	var tables any = sc.Tables
	if sc.All {
		tables = "all"
	}
	if sc.Ordered {
		return json.Marshal(stateCompareForm{Tables: tables, Ordered: true})
	}
	return json.Marshal(tables)
}

// Efficiency bounds the generated answer's plan cost by the gold's: the answer fails
// when its cost is more than MaxRatio times the gold's.
type Efficiency struct {
	MaxRatio float64 `json:"max_ratio" yaml:"max_ratio"`
}

// CheckStateful reports what is wrong with the stateful fields of a case, each problem
// naming its field; nil when the case is fine or not stateful.
func (c *Case) CheckStateful() []string {
	if !c.Stateful() {
		return nil
	}
	var out []string
	for _, f := range []struct {
		name string
		list Statements
	}{{"setup", c.Setup}, {"checks", c.Checks}, {"teardown", c.Teardown}} {
		for i, s := range f.list {
			if strings.TrimSpace(s) == "" {
				out = append(out, fmt.Sprintf("field %s: item %d is empty", f.name, i+1))
			}
		}
	}
	if c.Efficiency != nil && !(c.Efficiency.MaxRatio > 0) {
		out = append(out, "field efficiency.max_ratio must be a number above 0 (1.0: no costlier than the gold)")
	}
	if len(c.OtherGolds) > 0 {
		out = append(out, "field expected_query: a stateful case has one gold (its statements in one text), not a list")
	}
	return out
}
