package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/registry"
)

// cmdMirror copies SQLite databases into another engine, so the same data can be
// queried there (cross-engine runs, qeval spider --pred-engine).
func cmdMirror(ctx context.Context, args []string, e *env) int {
	fs := newFlags("mirror", "--to TARGET [--replace] [--json] SRC...", e)
	to := fs.String("to", "", "where to copy: duckdb:PATH (a file for one source, else a folder), postgres://…, mysql://…, clickhouse://host:9000/db")
	replace := fs.Bool("replace", false, "drop a database (file, schema) of the same name first, instead of refusing")
	asJSON := fs.Bool("json", false, "print one JSON object per copied database")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if *to == "" || fs.NArg() == 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: "qeval mirror needs --to and at least one source",
			Hint: "qeval mirror --to duckdb:mirror/ ../shared/data/spider/database"})
	}
	srcs, err := registry.MirrorSources(fs.Args()...)
	if err != nil {
		return fail(e, err)
	}
	done, err := registry.Mirror(ctx, *to, srcs, registry.MirrorOptions{Replace: *replace})
	for _, m := range done {
		if *asJSON {
			b, _ := json.Marshal(map[string]any{"db_id": m.DBID, "target": m.Target, "tables": m.Tables, "rows": m.Rows, "notes": m.Notes})
			fmt.Fprintln(e.stdout, string(b))
			continue
		}
		fmt.Fprintf(e.stdout, "%s: %d tables, %d rows -> %s\n", m.DBID, m.Tables, m.Rows, m.Target)
		for _, n := range m.Notes {
			fmt.Fprintf(e.stdout, "  note: %s\n", n)
		}
	}
	if err != nil {
		return fail(e, err)
	}
	return exitOK
}
