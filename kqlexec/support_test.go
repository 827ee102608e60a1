package kqlexec_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qeval/qeval/kqlexec"
)

// Every name of the reference is classified, every name that is not fully supported
// says why, and no probe fails for a reason other than the engine not handling it.
func TestSupport_EveryNameClassified(t *testing.T) {
	fs := kqlexec.Support()
	if len(fs) < 500 {
		t.Fatalf("%d names, want the whole reference (over 500)", len(fs))
	}
	seen := map[string]bool{}
	for _, f := range fs {
		key := f.Kind + "/" + f.Name
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
		switch f.Status {
		case kqlexec.Supported:
			if f.Reason != "" {
				t.Errorf("%s: supported with a reason %q", key, f.Reason)
			}
		case kqlexec.Partly, kqlexec.Unsupported:
			if f.Reason == "" {
				t.Errorf("%s: %s without a reason", key, f.Status)
			}
			if strings.HasPrefix(f.Reason, "not recognised") {
				t.Errorf("%s: its probe is broken: %s", key, f.Reason)
			}
		default:
			t.Errorf("%s: status %q", key, f.Status)
		}
	}
	want := map[string]kqlexec.Status{
		"scalar/abs": kqlexec.Supported, "operator/summarize": kqlexec.Supported,
		"operator/mv-expand": kqlexec.Supported, "plugin/bag_unpack": kqlexec.Supported, "operator/fork": kqlexec.Partly,
		"scalar/current_principal": kqlexec.Partly, "scalar/current_principal_details": kqlexec.Unsupported, "plugin/http_request": kqlexec.Unsupported,
		"operator/externaldata": kqlexec.Unsupported, "aggregation/make_set": kqlexec.Supported,
		"window/row_cumsum": kqlexec.Supported, "operator/scan": kqlexec.Partly, "statement/let": kqlexec.Supported,
	}
	for _, f := range fs {
		if w, ok := want[f.Kind+"/"+f.Name]; ok && f.Status != w {
			t.Errorf("%s/%s: %s (%s), want %s", f.Kind, f.Name, f.Status, f.Reason, w)
		}
	}
}

// What Support calls supported runs: each operator, statement, special function and
// plugin probe is run on a real executor over the probe table.
func TestSupport_SupportedProbesRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("T.csv", "a,s,d,ts\n1,a x,\"{\"\"k\"\":1}\",2024-01-01T00:00:00Z\n2,b,\"[1,2]\",2024-01-02T00:00:00Z\n")
	write("schema.kql", "T(a: long, s: string, d: dynamic, ts: datetime)\n")
	e, err := kqlexec.Open(dir, kqlexec.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ran := 0
	for _, f := range kqlexec.Support() {
		q := kqlexec.ProbeQuery(f.Kind, f.Name)
		if q == "" || f.Status == kqlexec.Unsupported {
			continue
		}
		if _, err := e.Query(context.Background(), q); err != nil {
			t.Errorf("%s %s is %s, but its probe %q fails: %v", f.Kind, f.Name, f.Status, q, err)
		}
		ran++
	}
	if ran < 35 {
		t.Errorf("only %d probes ran", ran)
	}
}
