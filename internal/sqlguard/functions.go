package sqlguard

import "strings"

// The one list of dangerous functions per dialect: functions that read or write
// server files, signal or wait on other sessions, change server state, hold locks
// beyond the transaction, or run SQL given as text with the caller's rights (a read-only
// transaction stops none of them). The executors' first-line text checks and the
// parser-backed guard (validate.Guard) both read it.

// functionRules is one dialect's rule: names denied, name prefixes denied, and — for a
// prefix that names an administrative namespace — the names of it that are allowed.
type functionRules struct {
	denied   map[string]bool
	prefixes []string
	// allowedInPrefix are the names under a denied prefix that are harmless reads.
	allowedInPrefix map[string]bool
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var functionsByDialect = map[string]functionRules{
	"postgres": {
		// SQL in a string argument runs with the caller's rights (ts_stat, query_to_xml,
		// dblink, …); the large-object, file and signal functions reach outside.
		denied: set(`ts_stat ts_rewrite query_to_xml query_to_xmlschema query_to_xml_and_xmlschema
			cursor_to_xml cursor_to_xmlschema table_to_xml table_to_xmlschema table_to_xml_and_xmlschema
			schema_to_xml schema_to_xmlschema schema_to_xml_and_xmlschema database_to_xml
			database_to_xmlschema database_to_xml_and_xmlschema lo_import lo_export lo_unlink lo_create
			lo_creat lo_open lo_put lo_from_bytea lo_truncate lo_get set_config txid_current`),
		// the administrative namespace: denied but for the harmless reads below
		prefixes: []string{"pg_", "dblink", "lo_", "binary_upgrade_"},
		allowedInPrefix: set(`pg_typeof pg_column_size pg_size_pretty pg_size_bytes pg_table_size
			pg_relation_size pg_total_relation_size pg_indexes_size pg_get_viewdef pg_get_expr
			pg_get_constraintdef pg_get_indexdef pg_get_functiondef pg_get_userbyid pg_get_serial_sequence
			pg_encoding_to_char pg_char_to_encoding pg_client_encoding pg_is_in_recovery
			pg_table_is_visible pg_type_is_visible pg_function_is_visible pg_input_is_valid
			pg_input_error_info pg_column_compression pg_get_function_arguments pg_get_function_result
			pg_backend_pid pg_sleep pg_sleep_for pg_sleep_until pg_advisory_xact_lock pg_advisory_xact_lock_shared
			pg_try_advisory_xact_lock pg_try_advisory_xact_lock_shared`), // sleeps end at the deadline, xact locks at the rollback
	},
	"mysql": {
		denied: set(`load_file get_lock release_lock release_all_locks is_free_lock is_used_lock
			master_pos_wait source_pos_wait master_gtid_wait wait_for_executed_gtid_set
			wait_until_sql_thread_after_gtids sys_exec sys_eval`),
	},
	"sqlite": {
		denied: set(`load_extension readfile writefile edit fts3_tokenizer`),
	},
}

// DeniedFunction reports whether a function of a dialect is refused. name may be
// schema-qualified and in any case; the schema is ignored (pg_catalog.pg_read_file is
// pg_read_file). An unknown dialect denies the union of every dialect's names.
func DeniedFunction(dialect, name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Trim(name, "\"`[]")
	r, ok := functionsByDialect[strings.ToLower(dialect)]
	if !ok {
		for d := range functionsByDialect {
			if DeniedFunction(d, name) {
				return true
			}
		}
		return false
	}
	if r.denied[name] {
		return true
	}
	for _, p := range r.prefixes {
		if strings.HasPrefix(name, p) {
			return !r.allowedInPrefix[name]
		}
	}
	return false
}
