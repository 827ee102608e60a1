package kqlexec

import (
	"strings"
	"sync"

	"github.com/ua-parser/uap-go/uaparser"
)

// userAgents is the ua-parser (uap-core's patterns, as Kusto's parse_user_agent uses),
// built on first use: compiling its patterns takes a moment no other query should pay.
var userAgents = sync.OnceValue(func() *uaparser.Parser {
	p, err := uaparser.New()
	if err != nil {
		return nil
	}
	return p
})

// userAgentFuncs defines parse_user_agent.
func userAgentFuncs(def func(string, *fnDef)) {
	// parse_user_agent(s, look_for): look_for is "browser", "os", "device", or an
	// array of them; the result has Browser, OperatingSystem and Device as asked
	def("parse_user_agent", &fnDef{min: 2, max: 2, args: []Type{TString, TDynamic}, ret: TDynamic, fn: func(a []any) any {
		s, ok := a[0].(string)
		if !ok {
			return nil
		}
		var targets []string
		look := a[1]
		if d, ok := look.(Dyn); ok {
			look = d.V
		}
		switch v := look.(type) {
		case string:
			targets = []string{v}
		case []any:
			for _, x := range v {
				if t, ok := x.(string); ok {
					targets = append(targets, t)
				}
			}
		}
		p := userAgents()
		if p == nil || len(targets) == 0 {
			return nil
		}
		out := map[string]any{}
		for _, t := range targets {
			switch strings.ToLower(strings.TrimSpace(t)) {
			case "browser":
				ua := p.ParseUserAgent(s)
				out["Browser"] = map[string]any{"Family": ua.Family, "MajorVersion": ua.Major, "MinorVersion": ua.Minor, "Patch": ua.Patch}
			case "os":
				os := p.ParseOs(s)
				out["OperatingSystem"] = map[string]any{"Family": os.Family, "MajorVersion": os.Major, "MinorVersion": os.Minor, "Patch": os.Patch, "PatchMinor": os.PatchMinor}
			case "device":
				d := p.ParseDevice(s)
				out["Device"] = map[string]any{"Family": d.Family, "Brand": d.Brand, "Model": d.Model}
			default:
				return nil
			}
		}
		return Dyn{out}
	}})
}
