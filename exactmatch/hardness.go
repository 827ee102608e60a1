package exactmatch

// Hardness is the official Spider difficulty of a parsed gold query ("easy", "medium",
// "hard" or "extra"): eval_hardness's thresholds on three counts of its clauses.
func Hardness(s *SQL) string {
	c1, c2, others := component1(s), len(nested(s)), countOthers(s)
	switch {
	case c1 <= 1 && others == 0 && c2 == 0:
		return "easy"
	case (others <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && others < 2 && c2 == 0):
		return "medium"
	case (others > 2 && c1 <= 2 && c2 == 0) || (2 < c1 && c1 <= 3 && others <= 2 && c2 == 0) || (c1 <= 1 && others == 0 && c2 <= 1):
		return "hard"
	}
	return "extra"
}

func component1(s *SQL) int {
	n := boolInt(!s.where.empty()) + boolInt(len(s.groupBy) > 0) + boolInt(s.order.present) + boolInt(s.limit)
	if len(s.tables) > 0 {
		n += len(s.tables) - 1
	}
	for _, c := range []condition{s.fromCond, s.where, s.having} {
		for _, o := range c.ops {
			n += boolInt(o == "or")
		}
		for _, u := range c.units {
			n += boolInt(u.op == opLike)
		}
	}
	return n
}

// nested is get_nestedSQL: subqueries in conditions and the set operation's query.
func nested(s *SQL) []*SQL {
	var out []*SQL
	for _, c := range []condition{s.fromCond, s.where, s.having} {
		for _, u := range c.units {
			for _, v := range []value{u.val1, u.val2} {
				if sub, ok := v.(*SQL); ok {
					out = append(out, sub)
				}
			}
		}
	}
	for _, sub := range []*SQL{s.intersect, s.except, s.union} {
		if sub != nil {
			out = append(out, sub)
		}
	}
	return out
}

// countOthers is count_others. Its aggregation count reads the first field of each unit,
// which for a WHERE or HAVING condition is the NOT flag, not an aggregate; the quirk is
// kept, since the official levels depend on it.
func countOthers(s *SQL) int {
	agg := 0
	for _, it := range s.sel {
		agg += boolInt(it.agg != 0)
	}
	for _, u := range s.where.units {
		agg += boolInt(u.not)
	}
	for _, c := range s.groupBy {
		agg += boolInt(c.agg != 0)
	}
	if s.order.present {
		for _, v := range s.order.units {
			agg += boolInt(v.col1.agg != 0)
		}
		for _, v := range s.order.units {
			if v.col2 != nil {
				agg += boolInt(v.col2.agg != 0)
			}
		}
	}
	// count_agg(sql['having']) walks the condition list itself: cond units (whose first
	// field is the NOT flag) and the 'and'/'or' strings, whose first letter is never 'none'.
	for _, u := range s.having.units {
		agg += boolInt(u.not)
	}
	agg += len(s.having.ops)
	n := boolInt(agg > 1) + boolInt(len(s.sel) > 1) + boolInt(len(s.where.units)+len(s.where.ops) > 1) + boolInt(len(s.groupBy) > 1)
	return n
}
