package kqlexec

import (
	"errors"
	"strings"

	"github.com/qeval/qeval"
)

// Status says how much of a KQL name the local engine runs.
type Status string

// The statuses of Support.
const (
	Supported   Status = "supported"
	Partly      Status = "partly"
	Unsupported Status = "unsupported"
)

// Feature is one name of the KQL reference and what the local engine does with it.
type Feature struct {
	// Kind is operator, statement, special, window, aggregation, time-series, geo,
	// scalar, plugin or graph-function.
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Reason says what is missing (partly, unsupported) or why it cannot be done
	// offline; empty for a name that is fully supported.
	Reason string `json:"reason,omitempty"`
}

// Support classifies every name of the KQL reference against this package's code, in
// the reference's order: functions by the translator's own tables (the Go run-time
// functions, the functions written as SQL, the aggregates), operators, statements,
// special functions and plugins by translating a small query that uses them. It is what `qeval kql support`
// prints; nothing in it is kept by hand except the reasons.
func Support() []Feature {
	var out []Feature
	for _, group := range reference {
		for _, name := range group.names {
			f := Feature{Kind: group.kind, Name: name}
			switch group.kind {
			case "operator", "statement", "plugin", "special":
				f.Status, f.Reason = probeSupport(group.kind, name)
			case "aggregation":
				f.Status, f.Reason = aggregateSupport(name)
			default:
				f.Status, f.Reason = functionSupport(name)
			}
			out = append(out, f)
		}
	}
	return out
}

// SupportCounts counts the features by status.
func SupportCounts(fs []Feature) map[Status]int {
	m := map[Status]int{}
	for _, f := range fs {
		m[f.Status]++
	}
	return m
}

// offline gives the reason a name cannot be answered by a local engine: it reads
// the cluster, the caller, the clock or a random source, or reaches out of the query.
var offline = map[string]string{
	"cluster":                               "names another cluster",
	"database":                              "names another database of the cluster",
	"external_table":                        "reads storage outside the database",
	"materialized_view":                     "reads a cluster's materialized view",
	"stored_query_result":                   "reads a cluster's stored results",
	"graph":                                 "reads a cluster's persisted graph",
	"current_principal_details":             "the caller's identity: no local answer",
	"current_principal_is_member_of":        "the caller's group membership: no local answer",
	"cursor_after":                          "database cursors exist only on a cluster",
	"cursor_before_or_at":                   "database cursors exist only on a cluster",
	"cursor_current":                        "database cursors exist only on a cluster",
	"extent_id":                             "extent metadata exists only on a cluster",
	"extent_tags":                           "extent metadata exists only on a cluster",
	"estimate_data_size":                    "the cluster's storage sizes: no local answer",
	"geo_info_from_ip_address":              "needs IP geolocation data, which the local engine does not bundle",
	"externaldata":                          "reads external storage: never run on generated queries",
	"python":                                "runs code in a sandbox on the cluster",
	"r":                                     "runs code in a sandbox on the cluster",
	"ai_embeddings":                         "calls an AI service",
	"ai_chat_completion":                    "calls an AI service",
	"ai_chat_completion_prompt":             "calls an AI service",
	"http_request":                          "calls out over the network",
	"http_request_post":                     "calls out over the network",
	"azure_digital_twins_query_request":     "calls another service",
	"cosmosdb_sql_request":                  "calls another service",
	"mysql_request":                         "calls another service",
	"postgresql_request":                    "calls another service",
	"sql_request":                           "calls another service",
	"infer_storage_schema":                  "reads external storage",
	"infer_storage_schema_with_suggestions": "reads external storage",
	"preview":                               "returns a cluster-side preview",
	"restrict":                              "access control of a cluster's applications",
	"alias":                                 "names a cluster database",
	"query parameters":                      "parameters are bound by the client that sends the query",
	"sample":                                "its rows are random: no reproducible answer",
	"sample-distinct":                       "its values are random: no reproducible answer",
}

// undefined gives the reason for a function whose result the reference does not
// define well enough to compute: a local answer could only be a guess.
var undefined = map[string]string{
	"hash_combine": "the reference does not say how the hashes are combined",
	"hash_many":    "the reference does not say how the hashes are combined",
}

// unsupportedReason is why the engine refuses a known function, or "".
func unsupportedReason(name string) string {
	if r, ok := offline[name]; ok {
		return r
	}
	return undefined[name]
}

// partial says what a supported name does not cover.
var partial = map[string]string{
	"scan":                     "not partition by or order by",
	"pattern":                  "invoked with literal arguments; not the path * (the union of every rule)",
	"make-graph":               "partitioned-by over at most 256 values",
	"graph-to-table":           "nodes or edges, one table at a time (not both in one call)",
	"graph-mark-components":    "components numbered from 0 in the order of their first node (Kusto's ids may differ)",
	"schema_merge":             "schemas read in their union's order (Kusto's may differ); columns of different types are not merged",
	"graph-match":              "variable-length edges of 1 to 10 hops",
	"graph-shortest-paths":     "variable-length edges of 1 to 10 hops; output=any keeps the first path in pattern order",
	"partition":                "a braced query runs for at most 256 key values",
	"activity_counts_metrics":  "exact distinct counts where Kusto estimates; no cohort or lookback arguments; windows without rows are left out",
	"rolling_percentile":       "exact percentiles (nearest rank) where Kusto estimates (within its error)",
	"activity_engagement":      "exact distinct counts where Kusto estimates",
	"activity_metrics":         "no calendar windows (week, month, year)",
	"new_activity_metrics":     "no calendar windows (week, month, year)",
	"active_users_count":       "exact distinct counts where Kusto estimates; not calendar bins (week, month, year); bins without active ids are left out",
	"session_count":            "bins where no session starts are left out; not calendar bins (week, month, year)",
	"sliding_window_counts":    "exact distinct counts where Kusto estimates; not calendar bins (week, month, year); bins without rows in their window are left out",
	"search":                   "a piped search adds no $table column",
	"top-hitters":              "exact counts and sums, where Kusto estimates (within its error)",
	"ingestion_time":           "null: local tables were not ingested under an IngestionTime policy (the page's answer without one)",
	"current_database":         "a fixed stand-in, NetDefaultDB (the Kusto emulator's database): there is no cluster",
	"current_principal":        "a fixed stand-in, aaduser=<zero id>;<zero tenant>: there is no caller",
	"current_cluster_endpoint": "a fixed stand-in, localhost: there is no cluster",
	"reduce":                   "one pass of the clustering of the paper its page names (SLCT): Kusto's own groups may differ on large or varied inputs",
	"top-nested":               "with others on the last level only",
	"facet":                    "the first table only (with's rows, else the first column's counts); Kusto returns one per column",
	"fork":                     "the first branch's table only (Kusto returns one per branch, the first is the primary result)",
	"hash":                     "strings and datetimes (the reference's examples); other types are refused: how Kusto hashes them is not documented",
	"tostring":                 "a format argument is not supported",
	"table":                    "the table's name must be a constant, a let or a function's argument",

	"join":        "join conditions other than equality of columns are not supported",
	"mv-apply":    "mv-apply inside mv-apply is not supported",
	"make-series": "at most 1,048,576 bins",
	"percentile":  "exact percentiles where Kusto estimates with t-digest (within its error)",
	"percentiles": "exact percentiles where Kusto estimates with t-digest (within its error)",
	"dcount":      "an exact count where Kusto estimates with HyperLogLog (within its error)",
	"dcountif":    "an exact count where Kusto estimates with HyperLogLog (within its error)",
}

func functionSupport(name string) (Status, string) {
	if r := unsupportedReason(name); r != "" {
		return Unsupported, r
	}
	alias := name
	if a, ok := funcAliases[name]; ok {
		alias = a
	}
	known := false
	if _, ok := lookupSpecial(alias); ok {
		known = true
	}
	if d, ok := funcs()[alias]; ok {
		known = true
		if d.partly != "" {
			return Partly, d.partly
		}
	}
	if r, ok := extendOnly[name]; ok {
		return Partly, r
	}
	if graphFuncs[name] {
		return Supported, ""
	}
	if !known {
		return Unsupported, "not implemented"
	}
	if r, ok := partial[name]; ok {
		return Partly, r
	}
	return Supported, ""
}

// graphFuncs are the graph functions graph-match's where and project read over a
// variable-length edge (translate_graph.go).
var graphFuncs = map[string]bool{"all": true, "any": true, "map": true, "inner_nodes": true}

// extendOnly lists the functions translated as a whole extend item, not as an
// expression: what they cover.
var extendOnly = map[string]string{
	"row_window_session": "as an extend item Name = row_window_session(...); a restart predicate may read the previous row with prev(Column) only",
}

func aggregateSupport(name string) (Status, string) {
	alias := name
	if a, ok := funcAliases[name]; ok {
		alias = a
	}
	if _, ok := aggregates[alias]; !ok {
		return Unsupported, "not implemented"
	}
	if r, ok := partial[name]; ok {
		return Partly, r
	}
	return Supported, ""
}

// probes are queries that use one operator, statement, special function or plugin
// each, over the table T(a:long, s:string, d:dynamic, ts:datetime); a name without
// one is probed with "T | name", "T | evaluate name(s)" or "print name('x')".
var probes = map[string]string{
	"as":                    "T | as X | count",
	"consume":               "T | consume",
	"count":                 "T | count",
	"datatable":             "datatable(x:long)[1, 2]",
	"distinct":              "T | distinct s",
	"evaluate":              "T | evaluate bag_unpack(d)",
	"extend":                "T | extend b = a + 1",
	"externaldata":          "externaldata(x:string)[@'https://example.invalid/x.csv']",
	"facet":                 "T | facet by s",
	"find":                  "find 'x'",
	"fork":                  "T | fork (where a > 1) (take 1)",
	"getschema":             "T | getschema",
	"graph-mark-components": "T | make-graph a --> a with T on a | graph-mark-components | graph-to-table nodes",
	"graph-match":           "T | make-graph a --> a with T on a | graph-match (x)-->(y) project x.a",
	"graph-shortest-paths":  "T | make-graph a --> a with T on a | graph-shortest-paths (x)-[e*1..3]->(y) project x.a",
	"graph-to-table":        "T | make-graph a --> a with T on a | graph-to-table nodes",
	"invoke":                "let f = (t:(a:long)) { t | take 1 }; T | invoke f()",
	"join":                  "T | join kind=inner (T | project a, s2 = s) on a",
	"lookup":                "T | lookup (T | project a, s2 = s) on a",
	"macro-expand":          "macro-expand entity_group [T, T] as X (X | count)",
	"make-graph":            "T | make-graph a --> a with T on a | graph-to-table nodes",
	"make-series":           "T | make-series count() default=0 on ts from datetime(2024-01-01) to datetime(2024-01-05) step 1d",
	"mv-apply":              "T | mv-apply x = d to typeof(long) on (summarize sum(x))",
	"mv-expand":             "T | mv-expand d",
	"parse":                 "T | parse s with 'a' rest:string",
	"parse-kv":              "T | parse-kv s as (k:string) with (pair_delimiter=',', kv_delimiter='=')",
	"parse-where":           "T | parse-where s with 'a' rest:string",
	"partition":             "T | partition by s (take 1)",
	"print":                 "print x = 1",
	"project":               "T | project a",
	"project-away":          "T | project-away a",
	"project-by-names":      "T | project-by-names 'a'",
	"project-keep":          "T | project-keep a",
	"project-rename":        "T | project-rename b = a",
	"project-reorder":       "T | project-reorder s",
	"range":                 "range x from 1 to 3 step 1",
	"reduce":                "T | reduce by s",
	"render":                "T | render table",
	"sample":                "T | sample 1",
	"sample-distinct":       "T | sample-distinct 1 of s",
	"scan":                  "T | sort by a asc | scan with (step x: a > 0;)",
	"search":                "T | search 'x'",
	"serialize":             "T | serialize n = row_number()",
	"sort":                  "T | sort by a",
	"summarize":             "T | summarize count() by s",
	"take":                  "T | take 1",
	"top":                   "T | top 1 by a",
	"top-hitters":           "T | top-hitters 1 of s",
	"top-nested":            "T | top-nested 1 of s by count()",
	"union":                 "T | union (T)",
	"where":                 "T | where a > 1",
	// statements
	"alias":            "alias database db = cluster('c').database('d'); print 1",
	"let":              "let x = 1; print x",
	"pattern":          "declare pattern P; print 1",
	"query parameters": "declare query_parameters(x:long = 1); print x",
	"restrict":         "restrict access to (T); T",
	"set":              "set notruncation; print 1",
	// special functions
	"table":       "table('T') | count",
	"toscalar":    "print toscalar(T | count)",
	"materialize": "let m = materialize(T | take 5); m | count",
	// plugins whose arguments are not one column
	"ipv4_lookup":             "T | evaluate ipv4_lookup(T, s, s)",
	"ipv6_lookup":             "T | evaluate ipv6_lookup(T, s, s)",
	"geo_polygon_lookup":      "T | evaluate geo_polygon_lookup(T, d, a, a)",
	"geo_line_lookup":         "T | evaluate geo_line_lookup(T, d, a, a, 10)",
	"bag_unpack":              "T | evaluate bag_unpack(d)",
	"narrow":                  "T | evaluate narrow()",
	"rows_near":               "T | evaluate rows_near(a > 1, 1)",
	"dcount_intersect":        "T | summarize h = hll(a), g = hll(a) | evaluate dcount_intersect(h, g)",
	"rolling_percentile":      "T | evaluate rolling_percentile(a, 50, ts, 1d, 3)",
	"activity_counts_metrics": "T | evaluate activity_counts_metrics(s, ts, datetime(2020-01-01), datetime(2020-02-01), 1d)",
	"session_count":           "T | evaluate session_count(s, ts, datetime(2020-01-01), datetime(2020-01-05), 1d, 2d)",
	"sliding_window_counts":   "T | evaluate sliding_window_counts(s, ts, datetime(2020-01-01), datetime(2020-01-05), 3d, 1d)",
	"active_users_count":      "T | evaluate active_users_count(s, ts, datetime(2020-01-01), datetime(2020-02-01), 8d, 1d, 3, 7d)",
	"activity_engagement":     "T | evaluate activity_engagement(s, ts, 1d, 7d)",
	"activity_metrics":        "T | evaluate activity_metrics(s, ts, datetime(2020-01-01), datetime(2020-02-01), 7d)",
	"new_activity_metrics":    "T | evaluate new_activity_metrics(s, ts, datetime(2020-01-01), datetime(2020-02-01), 7d)",
	"pivot":                   "T | evaluate pivot(s)",
	"schema_merge":            "T | getschema | evaluate schema_merge()",
}

// probeTable is the one table the probes read.
var probeTable = &rel{from: "T", cols: []column{{"a", TLong}, {"s", TString}, {"d", TDynamic}, {"ts", TDatetime}}}

// ProbeQuery is the query Support translates to classify an operator, statement,
// special function or plugin (over the table T(a:long, s:string, d:dynamic,
// ts:datetime)); "" for the other kinds, which are classified by the function tables.
func ProbeQuery(kind, name string) string {
	if q, ok := probes[name]; ok {
		return q
	}
	switch kind {
	case "plugin":
		return "T | evaluate " + name + "(s)"
	case "special":
		return "print " + name + "('x')"
	case "operator", "statement":
		return "T | " + name
	}
	return ""
}

func probeSupport(kind, name string) (Status, string) {
	if r, ok := offline[name]; ok {
		return Unsupported, r
	}
	q := ProbeQuery(kind, name)
	_, err := translate(q, 0, func(n string) (*rel, bool) {
		if n == "T" {
			return probeTable, true
		}
		return nil, false
	}, func() []string { return []string{"T"} }, func(string) ([][]any, error) { return nil, nil })
	var qe *qeval.Error
	if err != nil && errors.As(err, &qe) && qe.Code == qeval.CodeUnsupported {
		what := strings.TrimPrefix(qe.Message, "unsupported: ")
		switch {
		case what == name || what == "evaluate "+name:
			return Unsupported, "not implemented"
		case !strings.Contains(what, " "):
			return Unsupported, "not implemented (" + what + ")"
		}
		return Unsupported, what
	}
	if err != nil {
		return Unsupported, "not recognised: " + qeval.ErrorMessage(err)
	}
	if r, ok := partial[name]; ok {
		return Partly, r
	}
	return Supported, ""
}
