package compare_test

import (
	"errors"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/compare"
)

func TestLookup(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		cases := []struct{ spec, wantID string }{
			{"spider-ts", "spider-ts@1"},
			{"bag", "bag@1"},
			{"bag@1", "bag@1"},
			{" bag ", "bag@1"},
			{"bird-ex", "bird-ex@1"},
			{"ordered@1", "ordered@1"},
			{"subset", "subset@1"},
		}
		for _, c := range cases {
			m, err := compare.Lookup(c.spec)
			if err != nil {
				t.Errorf("Lookup(%q): %v", c.spec, err)
				continue
			}
			if m.ID() != c.wantID {
				t.Errorf("Lookup(%q).ID()=%q, want %q", c.spec, m.ID(), c.wantID)
			}
			if m.Equal == nil || m.Doc == "" {
				t.Errorf("Lookup(%q): mode without Equal or Doc", c.spec)
			}
		}
	})
	t.Run("ErrUnknownMode", func(t *testing.T) {
		cases := []struct{ spec, want string }{
			{"bagg", `unknown comparison mode "bagg" (known: bag, bird-ex, ordered, spider-ts, spider2, spider2-strict, subset)`},
			{"bag@9", `unknown comparison mode "bag@9" (known: bag, bird-ex, ordered, spider-ts, spider2, spider2-strict, subset)`},
			{"bag@", `unknown comparison mode "bag@" (known: bag, bird-ex, ordered, spider-ts, spider2, spider2-strict, subset)`},
			{"", `unknown comparison mode "" (known: bag, bird-ex, ordered, spider-ts, spider2, spider2-strict, subset)`},
			{"Bag", `unknown comparison mode "Bag" (known: bag, bird-ex, ordered, spider-ts, spider2, spider2-strict, subset)`},
		}
		for _, c := range cases {
			_, err := compare.Lookup(c.spec)
			if err == nil {
				t.Errorf("Lookup(%q): no error", c.spec)
				continue
			}
			if err.Error() != c.want {
				t.Errorf("Lookup(%q) error:\n got  %s\n want %s", c.spec, err, c.want)
			}
			var qe *qeval.Error
			if !errors.As(err, &qe) || qe.Code != qeval.CodeInvalid {
				t.Errorf("Lookup(%q): error %#v, want a *qeval.Error with code %s", c.spec, err, qeval.CodeInvalid)
			}
		}
	})
}

func TestModes(t *testing.T) {
	ms := compare.Modes()
	var ids []string
	for i, m := range ms {
		ids = append(ids, m.ID())
		if i > 0 {
			p := ms[i-1]
			if p.Name > m.Name || (p.Name == m.Name && p.Version >= m.Version) {
				t.Errorf("Modes() not sorted by name and version: %s before %s", p.ID(), m.ID())
			}
		}
		if m.Name == "" || m.Version < 1 || m.Doc == "" || m.Equal == nil {
			t.Errorf("mode %q: needs a name, a version >= 1, a Doc and an Equal", m.ID())
		}
		if got, err := compare.Lookup(m.ID()); err != nil || got.ID() != m.ID() {
			t.Errorf("Lookup(%q)=%v, %v", m.ID(), got.ID(), err)
		}
	}
	want := []string{"bag@1", "bird-ex@1", "ordered@1", "spider-ts@1", "spider2@1", "spider2-strict@1", "subset@1"}
	if len(ids) != len(want) {
		t.Fatalf("Modes()=%v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("Modes()=%v, want %v", ids, want)
		}
	}
	if compare.Default.ID() != "spider-ts@1" {
		t.Errorf("Default=%s, want spider-ts@1", compare.Default.ID())
	}
	// Modes returns a copy: changing it does not change the table.
	ms[0].Name = "changed"
	if compare.Modes()[0].Name == "changed" {
		t.Errorf("Modes() returned the table itself")
	}
}
