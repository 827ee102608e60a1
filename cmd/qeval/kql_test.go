package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestKQLSupport(t *testing.T) {
	code, out, errOut := runCLI(t, "", "kql", "support", "--json", "--kind", "operator")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	byName := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var f struct{ Kind, Name, Status, Reason string }
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if f.Kind != "operator" {
			t.Errorf("--kind operator printed %s", line)
		}
		byName[f.Name] = f.Status
	}
	if byName["summarize"] != "supported" || byName["externaldata"] != "unsupported" || len(byName) < 40 {
		t.Errorf("operators: %v", byName)
	}
	code, out, errOut = runCLI(t, "", "kql", "support", "--status", "unsupported")
	if code != exitOK || !strings.Contains(out, "current_principal") || strings.Contains(out, " supported ") ||
		!strings.Contains(errOut, "names of the KQL reference") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "", "kql", "support", "--status", "maybe"); code != exitUsage && code != 1 || !strings.Contains(errOut, "--status") {
		t.Errorf("bad --status: exit %d, %s", code, errOut)
	}
}
