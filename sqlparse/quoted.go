package sqlparse

// SQLite reads a "double-quoted" name as a string literal when no column has that name,
// and text-to-SQL models (and Spider's gold queries) write strings that way all the
// time: WHERE country = "France". Before a condition is walked, such names in value
// positions become literals. With a schema the test is exact; without one, a quoted
// name compared with a column (or listed in IN, or a BETWEEN bound) is taken as a value.

func (x *extractor) unquoteStrings(e *expr, s *scope) {
	if e == nil {
		return
	}
	switch e.kind {
	case exprBinary:
		switch e.op {
		case "and", "or":
			x.unquoteStrings(e.x, s)
			x.unquoteStrings(e.y, s)
			return
		case "=", "==", "!=", "<>", "<", "<=", ">", ">=", "like", "glob", "is":
			x.maybeString(e.y, e.x, s)
			x.maybeString(e.x, e.y, s)
		}
	case exprUnary:
		x.unquoteStrings(e.x, s)
	case exprIn:
		for _, a := range e.args {
			x.maybeString(a, e.x, s)
		}
	case exprBetween:
		for _, a := range e.args {
			x.maybeString(a, e.x, s)
		}
	}
}

// maybeString turns e into a string literal when it is a double-quoted name that is no
// column; other is what e is compared with.
func (x *extractor) maybeString(e, other *expr, s *scope) {
	if e == nil || e.kind != exprColumn || !e.quoted || e.table != "" {
		return
	}
	if x.schema != nil {
		if x.resolvable(e.name, s) {
			return
		}
	} else if other == nil || other.kind == exprLiteral || other.kind == exprColumn && other.quoted {
		return
	}
	e.kind, e.text, e.str, e.quoted = exprLiteral, e.name, true, false
}

// resolvable says whether name may be a column in scope: some source has it, or has
// columns not known, or it is a result-column alias.
func (x *extractor) resolvable(name string, s *scope) bool {
	for sc := s; sc != nil; sc = sc.parent {
		if sc.aliases[lower(name)] {
			return true
		}
		for _, b := range sc.sources {
			if b.star || b.cols == nil || containsFold(b.cols, name) {
				return true
			}
		}
	}
	return false
}
