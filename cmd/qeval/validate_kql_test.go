package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

// qeval validate --dialect kql applies the KQL rules with the data folder's schema, and
// --format sarif writes a log that validates against the SARIF 2.1.0 schema.
func TestValidate_KQLRulesAndSARIF(t *testing.T) {
	in := filepath.Join(t.TempDir(), "queries.txt")
	queries := "StormEvents | where StartTime > ago(7d) | count\n" +
		".drop table StormEvents\n" +
		"StormEvents | summarize count() by State\n" +
		"StormEvents | where State ==\n"
	if err := os.WriteFile(in, []byte(queries), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "validate", "--dialect", "kql", "--data", "../../examples/kql/stormevents", in)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []struct {
		Valid    bool
		Problems []struct{ Category, Rule string }
		Warnings []struct{ Rule string }
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var v struct {
			Valid    bool
			Problems []struct{ Category, Rule string }
			Warnings []struct{ Rule string }
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if len(got) != 4 || !got[0].Valid || len(got[0].Warnings) != 0 ||
		got[1].Valid || got[1].Problems[0].Rule != "KQL001 management-command" ||
		!got[2].Valid || len(got[2].Warnings) != 1 || got[2].Warnings[0].Rule != "KQL006 no-time-filter" ||
		got[3].Valid || got[3].Problems[0].Category != "syntax" {
		t.Fatalf("verdicts:\n%s", out)
	}

	code, out, errOut = runCLI(t, "", "validate", "--dialect", "kql", "--data", "../../examples/kql/stormevents", "--format", "sarif", in)
	if code != exitOK {
		t.Fatalf("sarif: exit %d: %s", code, errOut)
	}
	rep, err := sarif.FromBytes([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Validate(); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}
	results := rep.Runs[0].Results
	if len(results) != 3 || *results[0].RuleID != "KQL001" || results[0].Level != "error" ||
		*results[1].RuleID != "KQL006" || results[1].Level != "warning" || *results[2].RuleID != "syntax" {
		t.Errorf("results: %s", out)
	}
	if line := results[0].Locations[0].PhysicalLocation.Region.StartLine; line == nil || *line != 2 {
		t.Errorf("the management command is on line 2 of the input, SARIF says %v", line)
	}

	if code, _, errOut := runCLI(t, "", "validate", "--format", "xml", in); code == exitOK || !strings.Contains(errOut, "--format") {
		t.Errorf("--format xml: exit %d, %s", code, errOut)
	}
}
