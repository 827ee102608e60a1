package exactmatch

// Equality as Python's == sees the official tuples, lists and dicts.

func eqSlice[T any](a, b []T, eq func(x, y T) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !eq(a[i], b[i]) {
			return false
		}
	}
	return true
}

func eqColUnit(a, b colUnit) bool { return a == b }

func eqValUnit(a, b valUnit) bool {
	if a.op != b.op || a.col1 != b.col1 || (a.col2 == nil) != (b.col2 == nil) {
		return false
	}
	return a.col2 == nil || *a.col2 == *b.col2
}

func eqSelectItem(a, b selectItem) bool { return a.agg == b.agg && eqValUnit(a.val, b.val) }

func eqValue(a, b value) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case colUnit:
		y, ok := b.(colUnit)
		return ok && x == y
	case *SQL:
		y, ok := b.(*SQL)
		return ok && eqSQL(x, y)
	}
	return false
}

func eqCondUnit(a, b condUnit) bool {
	return a.not == b.not && a.op == b.op && eqValUnit(a.val, b.val) && eqValue(a.val1, b.val1) && eqValue(a.val2, b.val2)
}

func eqCondition(a, b condition) bool {
	return eqSlice(a.units, b.units, eqCondUnit) && eqSlice(a.ops, b.ops, func(x, y string) bool { return x == y })
}

func eqOrder(a, b orderBy) bool {
	if a.present != b.present {
		return false
	}
	return !a.present || (a.dir == b.dir && eqSlice(a.units, b.units, eqValUnit))
}

func eqTableUnit(a, b tableUnit) bool {
	if (a.sub == nil) != (b.sub == nil) {
		return false
	}
	if a.sub != nil {
		return eqSQL(a.sub, b.sub)
	}
	return a.table == b.table
}

func eqSQL(a, b *SQL) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.distinct == b.distinct && eqSlice(a.sel, b.sel, eqSelectItem) &&
		eqSlice(a.tables, b.tables, eqTableUnit) && eqCondition(a.fromCond, b.fromCond) &&
		eqCondition(a.where, b.where) && eqSlice(a.groupBy, b.groupBy, eqColUnit) &&
		eqCondition(a.having, b.having) && eqOrder(a.order, b.order) && a.limit == b.limit &&
		eqSQL(a.intersect, b.intersect) && eqSQL(a.except, b.except) && eqSQL(a.union, b.union)
}
