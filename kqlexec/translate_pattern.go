package kqlexec

import (
	"github.com/qeval/qeval/kql"
)

// patternCall returns the pattern a call invokes (name(args) or name(args).Path) and
// the path, or nil when x is not one.
func patternCall(x kql.Expr, e *env) (*binding, *kql.Call, *kql.Ident) {
	var path *kql.Ident
	if m, ok := x.(*kql.Member); ok {
		x, path = m.X, m.Name
	}
	c, ok := x.(*kql.Call)
	if !ok {
		return nil, nil, nil
	}
	id, ok := c.Func.(*kql.Ident)
	if !ok {
		return nil, nil, nil
	}
	if b := e.lookup(id.Name); b != nil && b.pattern != nil {
		return b, c, path
	}
	return nil, nil, nil
}

// invokePattern expands name(Args).Path of a declared pattern: the rule whose
// arguments and path equal the call's (a rule written with * matches any value, after
// the rules that name it), with the pattern's parameters bound to the call's values
// in the rule's body.
func (t *translator) invokePattern(b *binding, c *kql.Call, path *kql.Ident, e *env) (*rel, error) {
	p := b.pattern
	if len(c.Args) != len(p.Params) {
		return nil, t.errAt(c, "pattern %s takes %d arguments, not %d", p.Name.Name, len(p.Params), len(c.Args))
	}
	if (path != nil) != (len(p.PathParams) > 0) {
		if path == nil {
			return nil, t.errAt(c, "pattern %s needs a path: %s(...).Name", p.Name.Name, p.Name.Name)
		}
		return nil, t.errAt(path, "pattern %s has no path", p.Name.Name)
	}
	if path != nil && path.Name == "*" {
		return nil, t.unsupported(path, "a pattern path of * (the union of every rule)")
	}
	// the call's values, as the rules write them
	want := make([]*kql.Literal, len(c.Args))
	for i, a := range c.Args {
		l, ok := a.(*kql.Literal)
		if !ok {
			return nil, t.unsupported(a, "a pattern argument that is not a literal")
		}
		want[i] = l
	}
	var best *kql.PatternRule
	bestStars := -1
	for _, r := range p.Rules {
		stars, ok := ruleMatches(r, want, path)
		if ok && (best == nil || stars < bestStars) {
			best, bestStars = r, stars
		}
	}
	if best == nil {
		what := kql.Format(c)
		if path != nil {
			what += "." + path.Name
		}
		return nil, t.errAt(c, "pattern %s has no rule for %s", p.Name.Name, what)
	}
	params := append(append([]*kql.Param(nil), p.Params...), p.PathParams...)
	args := append([]kql.Expr(nil), c.Args...)
	if path != nil {
		args = append(args, &kql.Literal{Span: path.Span, Kind: kql.LitString, Value: path.Name, Raw: "'" + path.Name + "'"})
	}
	fn := &binding{fn: &kql.FuncDef{Span: best.Span, Params: params, Body: best.Body}, fnEnv: b.patEnv}
	return t.callTabularFunc(c, fn, args, e)
}

// ruleMatches reports whether a rule's arguments and path equal the call's, and how
// many of them it matched with *.
func ruleMatches(r *kql.PatternRule, want []*kql.Literal, path *kql.Ident) (int, bool) {
	if len(r.Args) != len(want) {
		return 0, false
	}
	stars := 0
	for i, a := range r.Args {
		switch a := a.(type) {
		case *kql.Star:
			stars++
		case *kql.Literal:
			if a.Kind != want[i].Kind || a.Value != want[i].Value {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	if path != nil {
		if len(r.Path) != 1 {
			return 0, false
		}
		switch a := r.Path[0].(type) {
		case *kql.Star:
			stars++
		case *kql.Literal:
			if a.Value != path.Name {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return stars, true
}
