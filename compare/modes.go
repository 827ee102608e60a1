package compare

import (
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// table is the one list of comparison modes, every version of each.
var table = []Mode{
	SpiderTS,
	Bag,
	BirdEX,
	Ordered,
	Subset,
	Spider2,
	Spider2Strict,
}

// Default is the mode of qeval.OfficialMode, used where a package needs a Mode value
// and none is given.
var Default = mustLookup(qeval.OfficialMode)

func mustLookup(name string) Mode {
	m, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return m
}

// Modes returns every mode, sorted by name and version.
func Modes() []Mode {
	out := append([]Mode(nil), table...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Version < out[j].Version
	})
	return out
}

// Lookup finds a mode by "name" (its newest version) or "name@version".
func Lookup(spec string) (Mode, error) {
	name, ver, hasVer := strings.Cut(strings.TrimSpace(spec), "@")
	var found *Mode
	for i := range table {
		m := &table[i]
		if m.Name != name {
			continue
		}
		if hasVer {
			if strconv.Itoa(m.Version) == ver {
				found = m
				break
			}
			continue
		}
		if found == nil || m.Version > found.Version {
			found = m
		}
	}
	if found == nil {
		e := &qeval.Error{Code: qeval.CodeInvalid,
			Message: "unknown comparison mode " + strconv.Quote(spec) + " (known: " + strings.Join(names(), ", ") + ")"}
		if m := qeval.DidYouMean(name, names()); m != "" {
			e.Hint = "did you mean " + m + "?"
		}
		return Mode{}, e
	}
	if found.Replaced != "" {
		return Mode{}, &qeval.Error{Code: qeval.CodeInvalid,
			Message: "comparison mode " + strconv.Quote(spec) + " was retired", Hint: "use " + found.Replaced}
	}
	return *found, nil
}

func names() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range table {
		if !seen[m.Name] {
			seen[m.Name] = true
			out = append(out, m.Name)
		}
	}
	sort.Strings(out)
	return out
}
