package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

// cmdKQL is `qeval kql support`: the support matrix of the local KQL engine, every
// name of the KQL reference with what the engine does with it, computed from the
// engine's code (registry.KQLSupport).
func cmdKQL(_ context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] != "support" {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "qeval kql takes the subcommand support",
			Hint: "qeval kql support [--status supported|partly|unsupported] [--kind KIND] [--json]"})
	}
	fs := newFlags("kql support", "[--status S] [--kind K] [--json]", e)
	status := fs.String("status", "", "only names with this status: supported, partly or unsupported")
	kind := fs.String("kind", "", "only this kind: operator, statement, special, window, aggregation, time-series, geo, scalar, plugin, graph-function")
	asJSON := fs.Bool("json", false, "print JSON lines, one name each")
	if code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	switch registry.KQLStatus(*status) {
	case "", registry.KQLSupported, registry.KQLPartly, registry.KQLUnsupported:
	default:
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--status %q: want supported, partly or unsupported", *status)})
	}
	all := registry.KQLSupport()
	var shown []registry.KQLFeature
	kinds := map[string]bool{}
	for _, f := range all {
		kinds[f.Kind] = true
		if (*status == "" || string(f.Status) == *status) && (*kind == "" || f.Kind == *kind) {
			shown = append(shown, f)
		}
	}
	if *kind != "" && !kinds[*kind] {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("--kind %q: not a kind of the reference", *kind)})
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, f := range shown {
			if err := enc.Encode(f); err != nil {
				return fail(e, err)
			}
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tSTATUS\tREASON")
	for _, f := range shown {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Kind, f.Name, f.Status, f.Reason)
	}
	tw.Flush()
	n := registry.KQLSupportCounts(all)
	fmt.Fprintf(e.stderr, "%d names of the KQL reference: %d supported, %d partly, %d unsupported\n",
		len(all), n[registry.KQLSupported], n[registry.KQLPartly], n[registry.KQLUnsupported])
	return exitOK
}
