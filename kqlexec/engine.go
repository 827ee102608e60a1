package kqlexec

import "github.com/qeval/qeval/sqlite"

// Translated queries run on the sqlite package's executor (sqlite.OpenWith), in its
// sandbox (read-only file, authorizer allow-list, deadline and caps), with the KQL
// run-time functions (kf, kfv, ka) installed on each connection. Tables are loaded into
// the engine's private database file through sqlite.OpenScratch; this package never
// touches the SQLite driver itself.

// kqlRuntime is the KQL run-time library as SQL functions: kf and kfv dispatch to a KQL
// function by name (deterministic and not), ka to an aggregate.
var kqlRuntime = sqlite.Options{
	Funcs: []sqlite.Func{
		{Name: "kf", Impl: dispatch, Pure: true},
		{Name: "kfv", Impl: dispatch, Pure: false},
	},
	Aggregates: []sqlite.Aggregate{{Name: "ka", New: newGoAgg, Pure: true}},
	// a translated query materializes its stages: in memory, under the memory cap
	TempInMemory: true,
}
