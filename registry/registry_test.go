package registry_test

import (
	"strings"
	"testing"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

func TestRegistry_UnknownNamesListKnown(t *testing.T) {
	_, err := registry.NewWriter("csv")
	if err == nil || !strings.Contains(err.Error(), `unknown report format "csv" (known: html, json, junit, md, xlsx)`) {
		t.Errorf("NewWriter(csv) = %v", err)
	}
	_, err = registry.Opener("oracle")
	if err == nil || !strings.Contains(err.Error(), `unknown database engine "oracle" (known: kql, kusto, mysql, postgres, sqlite)`) {
		t.Errorf("Opener(oracle) = %v", err)
	}
	if qeval.ErrorCode(err) != qeval.CodeInvalid {
		t.Errorf("code = %s", qeval.ErrorCode(err))
	}
}

func TestRegistry_EngineOf(t *testing.T) {
	for target, want := range map[string]string{
		"postgres://u:p@127.0.0.1:5432/test":     "postgres",
		"postgresql://127.0.0.1/test":            "postgres",
		"root:@tcp(127.0.0.1:3306)/test":         "mysql",
		"mysql://root@127.0.0.1/test":            "mysql",
		"examples/chinook/chinook.sqlite":        "sqlite",
		"https://help.kusto.windows.net/Samples": "kusto",
	} {
		if got := registry.EngineOf(target); got != want {
			t.Errorf("EngineOf(%q) = %s, want %s", target, got, want)
		}
	}
	for _, name := range []string{"json", "xlsx", "junit", "html", "md"} {
		w, err := registry.NewWriter(name)
		if err != nil || w.FileName() == "" {
			t.Errorf("NewWriter(%s) = %v, %v", name, w, err)
		}
	}
}
