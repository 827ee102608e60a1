package sqlite

import (
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/qeval/qeval/internal/lexbyte"
)

// The authorizer is an allow-list: a statement may read tables, select, call
// functions (except the few below) and recurse. Everything else — every write, DDL,
// ATTACH, PRAGMA, transaction or savepoint — is denied while the statement is
// prepared, so it never runs. mode=ro and query_only are kept as a second line of
// defence, but they alone do not stop ATTACH or VACUUM INTO from creating files, nor
// SQL from turning query_only off.

// sqliteRecursive is SQLITE_RECURSIVE (33), which the driver does not export.
const sqliteRecursive = 33

// deniedFunctions are functions a generated query may not call even though calling
// functions is allowed.
var deniedFunctions = map[string]bool{
	"load_extension": true,
	"fts3_tokenizer": true,
	"readfile":       true,
	"writefile":      true,
	"edit":           true,
}

// newerFunctions are the functions qeval's SQLite (3.54) has and Debian 12's 3.40 does
// not, found by comparing their pragma_function_list (the math functions, which the
// driver lacks, are registered in mathfuncs.go).
var newerFunctions = map[string]bool{
	"concat": true, "concat_ws": true, "if": true, "octet_length": true, "string_agg": true,
	"timediff": true, "unhex": true, "unistr": true, "unistr_quote": true,
	"json_array_insert": true, "json_error_position": true, "json_pretty": true,
	"jsonb": true, "jsonb_array": true, "jsonb_array_insert": true, "jsonb_extract": true,
	"jsonb_group_array": true, "jsonb_group_object": true, "jsonb_insert": true,
	"jsonb_object": true, "jsonb_patch": true, "jsonb_remove": true, "jsonb_replace": true,
	"jsonb_set": true,
}

// readPragmas may run when the executor itself asks (trusted), never for a query.
var readPragmas = map[string]bool{
	"schema_version":   true,
	"table_info":       true,
	"table_xinfo":      true,
	"foreign_key_list": true,
	"index_list":       true,
	"index_info":       true,
}

// authorize decides one authorizer request for c.
func (c *conn) authorize(op int, arg1, arg2, arg3 string) int {
	if c.trusted && c.setup {
		return sqlite3.SQLITE_OK // qeval's own set-up of a reused copy (pool.go)
	}
	if c.mode != nil && c.mode.pooled && !c.trusted {
		if poolRefuses(op, arg1, arg2) {
			// the side runs again in a fresh copy, where the statement is allowed
			c.mode.lost = true
			c.deny(describeAction(op, arg1, arg2) + " cannot run in a reused copy")
			return sqlite3.SQLITE_DENY
		}
		c.mode.note(op, arg1, arg2)
	}
	switch op {
	case sqlite3.SQLITE_SELECT, sqliteRecursive:
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_READ:
		if c.reads != nil {
			c.reads = append(c.reads, [2]string{arg1, arg2})
		}
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_FUNCTION:
		if strings.EqualFold(arg2, handleFunc) && c.trusted {
			return sqlite3.SQLITE_OK
		}
		if strings.EqualFold(arg2, memoryFunc) || strings.EqualFold(arg2, handleFunc) {
			c.deny("function " + arg2 + "() is not allowed")
			return sqlite3.SQLITE_DENY
		}
		if strings.EqualFold(arg2, vmStepsFunc) {
			if c.stepsArmed {
				c.stepsArmed = false
				return sqlite3.SQLITE_OK
			}
			c.deny("function " + arg2 + "() is not allowed")
			return sqlite3.SQLITE_DENY
		}
		if c.official && newerFunctions[strings.ToLower(arg2)] {
			if c.missing == "" {
				c.missing = arg2
			}
			return sqlite3.SQLITE_DENY
		}
		if deniedFunctions[strings.ToLower(arg2)] {
			c.deny("function " + arg2 + "() is not allowed")
			return sqlite3.SQLITE_DENY
		}
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_PRAGMA:
		if c.trusted && (c.setup || readPragmas[strings.ToLower(arg1)]) {
			return sqlite3.SQLITE_OK
		}
	}
	if c.sandbox && sandboxAllows(op, arg1, arg2) {
		return sqlite3.SQLITE_OK
	}
	c.deny(describeAction(op, arg1, arg2) + " is not allowed: the executor is read-only")
	return sqlite3.SQLITE_DENY
}

// deny keeps the first reason a statement was refused, for the error message.
func (c *conn) deny(reason string) {
	if c.denied == "" {
		c.denied = reason
	}
}

var actionNames = map[int]string{
	sqlite3.SQLITE_CREATE_INDEX:        "CREATE INDEX",
	sqlite3.SQLITE_CREATE_TABLE:        "CREATE TABLE",
	sqlite3.SQLITE_CREATE_TEMP_INDEX:   "CREATE TEMP INDEX",
	sqlite3.SQLITE_CREATE_TEMP_TABLE:   "CREATE TEMP TABLE",
	sqlite3.SQLITE_CREATE_TEMP_TRIGGER: "CREATE TEMP TRIGGER",
	sqlite3.SQLITE_CREATE_TEMP_VIEW:    "CREATE TEMP VIEW",
	sqlite3.SQLITE_CREATE_TRIGGER:      "CREATE TRIGGER",
	sqlite3.SQLITE_CREATE_VIEW:         "CREATE VIEW",
	sqlite3.SQLITE_DELETE:              "DELETE",
	sqlite3.SQLITE_DROP_INDEX:          "DROP INDEX",
	sqlite3.SQLITE_DROP_TABLE:          "DROP TABLE",
	sqlite3.SQLITE_DROP_TEMP_INDEX:     "DROP TEMP INDEX",
	sqlite3.SQLITE_DROP_TEMP_TABLE:     "DROP TEMP TABLE",
	sqlite3.SQLITE_DROP_TEMP_TRIGGER:   "DROP TEMP TRIGGER",
	sqlite3.SQLITE_DROP_TEMP_VIEW:      "DROP TEMP VIEW",
	sqlite3.SQLITE_DROP_TRIGGER:        "DROP TRIGGER",
	sqlite3.SQLITE_DROP_VIEW:           "DROP VIEW",
	sqlite3.SQLITE_INSERT:              "INSERT",
	sqlite3.SQLITE_PRAGMA:              "PRAGMA",
	sqlite3.SQLITE_TRANSACTION:         "a transaction statement",
	sqlite3.SQLITE_UPDATE:              "UPDATE",
	sqlite3.SQLITE_ATTACH:              "ATTACH",
	sqlite3.SQLITE_DETACH:              "DETACH",
	sqlite3.SQLITE_ALTER_TABLE:         "ALTER TABLE",
	sqlite3.SQLITE_REINDEX:             "REINDEX",
	sqlite3.SQLITE_ANALYZE:             "ANALYZE",
	sqlite3.SQLITE_CREATE_VTABLE:       "CREATE VIRTUAL TABLE",
	sqlite3.SQLITE_DROP_VTABLE:         "DROP VIRTUAL TABLE",
	sqlite3.SQLITE_SAVEPOINT:           "SAVEPOINT",
}

func describeAction(op int, arg1, arg2 string) string {
	name, ok := actionNames[op]
	if !ok {
		name = "operation " + itoa(op)
	}
	switch op {
	case sqlite3.SQLITE_TRANSACTION, sqlite3.SQLITE_SAVEPOINT:
		if arg1 != "" {
			return name + " (" + strings.ToUpper(arg1) + ")"
		}
		return name
	case sqlite3.SQLITE_UPDATE:
		return name + " of " + arg1 + "." + arg2
	case sqlite3.SQLITE_PRAGMA:
		if arg2 != "" {
			return name + " " + arg1 + " = " + arg2
		}
		return name + " " + arg1
	case sqlite3.SQLITE_ATTACH:
		return name + " of '" + arg1 + "'"
	}
	if arg1 != "" {
		return name + " " + arg1
	}
	return name
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	p := len(b)
	for i > 0 {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		p--
		b[p] = '-'
	}
	return string(b[p:])
}

// deniedMessage says which statement was refused. The authorizer's first refusal is
// often an internal step (DROP TABLE first deletes from sqlite_master, VACUUM attaches
// a temporary file), so a statement that is not a query is named by its own keywords,
// with the authorizer's detail where that is more precise (ATTACH of a file, a PRAGMA).
func (c *conn) deniedMessage(engineMsg string) string {
	msg := c.refusal(engineMsg)
	if c.sandbox {
		msg = strings.ReplaceAll(msg, "the executor is read-only", sandboxReason)
	}
	return msg
}

func (c *conn) refusal(engineMsg string) string {
	phrase := leadingKeywords(c.stmt)
	detail := c.denied
	internal := strings.Contains(detail, "sqlite_master") || strings.Contains(detail, "sqlite_temp_master") || strings.Contains(detail, "ATTACH of ''")
	switch {
	case phrase == "" || phrase == "SELECT" || phrase == "WITH" || phrase == "VALUES" || phrase == "EXPLAIN":
		if detail != "" {
			return detail
		}
		return engineMsg
	case detail != "" && !internal && (phrase == "ATTACH" || phrase == "PRAGMA"):
		return detail
	}
	return phrase + " is not allowed: the executor is read-only"
}

// leadingKeywords returns the first keywords of a statement in upper case: one word,
// or for CREATE/DROP/ALTER the object kind too ("DROP TABLE", "CREATE TEMP VIEW").
func leadingKeywords(stmt string) string {
	var words []string
	i := nextToken(stmt, 0)
	for i >= 0 && i < len(stmt) && len(words) < 4 {
		j := i
		for j < len(stmt) && lexbyte.IsASCIIWord(stmt[j]) {
			j++
		}
		if j == i {
			break
		}
		words = append(words, strings.ToUpper(stmt[i:j]))
		if len(words) == 1 && words[0] != "CREATE" && words[0] != "DROP" && words[0] != "ALTER" {
			break
		}
		if w := words[len(words)-1]; len(words) > 1 && w != "TEMP" && w != "TEMPORARY" && w != "VIRTUAL" && w != "UNIQUE" {
			break
		}
		i = nextToken(stmt, j)
	}
	return strings.Join(words, " ")
}
