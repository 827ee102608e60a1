// Code generated from the prototypes of Z3's C API (z3_api.h, Z3 4.8): the types
// and functions this package uses, reached through dlopen so that qeval builds and
// runs without Z3 (Debian's libz3-4) and the complete check says it is missing.

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

typedef struct _Z3_config *Z3_config;
typedef struct _Z3_context *Z3_context;
typedef struct _Z3_ast *Z3_ast;
typedef struct _Z3_sort *Z3_sort;
typedef struct _Z3_symbol *Z3_symbol;
typedef struct _Z3_func_decl *Z3_func_decl;
typedef struct _Z3_solver *Z3_solver;
typedef struct _Z3_model *Z3_model;
typedef const char *Z3_string;
typedef int Z3_lbool;
typedef int Z3_error_code;
typedef void Z3_error_handler(Z3_context c, Z3_error_code e);
enum { Z3_L_FALSE = -1, Z3_L_UNDEF = 0, Z3_L_TRUE = 1 };
enum { Z3_OK = 0 };

static Z3_string (*qeval_p_Z3_ast_to_string)(Z3_context c, Z3_ast a);
static void (*qeval_p_Z3_del_config)(Z3_config c);
static void (*qeval_p_Z3_del_context)(Z3_context c);
static Z3_lbool (*qeval_p_Z3_get_bool_value)(Z3_context c, Z3_ast a);
static Z3_error_code (*qeval_p_Z3_get_error_code)(Z3_context c);
static Z3_string (*qeval_p_Z3_get_error_msg)(Z3_context c, Z3_error_code err);
static Z3_string (*qeval_p_Z3_get_numeral_string)(Z3_context c, Z3_ast a);
static void (*qeval_p_Z3_global_param_set)(Z3_string param_id, Z3_string param_value);
static void (*qeval_p_Z3_interrupt)(Z3_context c);
static bool (*qeval_p_Z3_is_numeral_ast)(Z3_context c, Z3_ast a);
static Z3_ast (*qeval_p_Z3_mk_add)(Z3_context c, unsigned num_args, Z3_ast const args[]);
static Z3_ast (*qeval_p_Z3_mk_and)(Z3_context c, unsigned num_args, Z3_ast const args[]);
static Z3_ast (*qeval_p_Z3_mk_app)(Z3_context c, Z3_func_decl d, unsigned num_args, Z3_ast const args[]);
static Z3_sort (*qeval_p_Z3_mk_bool_sort)(Z3_context c);
static Z3_config (*qeval_p_Z3_mk_config)(void);
static Z3_ast (*qeval_p_Z3_mk_const)(Z3_context c, Z3_symbol s, Z3_sort ty);
static Z3_context (*qeval_p_Z3_mk_context)(Z3_config c);
static Z3_ast (*qeval_p_Z3_mk_div)(Z3_context c, Z3_ast arg1, Z3_ast arg2);
static Z3_ast (*qeval_p_Z3_mk_eq)(Z3_context c, Z3_ast l, Z3_ast r);
static Z3_ast (*qeval_p_Z3_mk_false)(Z3_context c);
static Z3_func_decl (*qeval_p_Z3_mk_func_decl)(Z3_context c, Z3_symbol s, unsigned domain_size, Z3_sort const domain[], Z3_sort range);
static Z3_ast (*qeval_p_Z3_mk_ge)(Z3_context c, Z3_ast t1, Z3_ast t2);
static Z3_ast (*qeval_p_Z3_mk_gt)(Z3_context c, Z3_ast t1, Z3_ast t2);
static Z3_ast (*qeval_p_Z3_mk_iff)(Z3_context c, Z3_ast t1, Z3_ast t2);
static Z3_ast (*qeval_p_Z3_mk_implies)(Z3_context c, Z3_ast t1, Z3_ast t2);
static Z3_ast (*qeval_p_Z3_mk_int2real)(Z3_context c, Z3_ast t1);
static Z3_ast (*qeval_p_Z3_mk_int64)(Z3_context c, int64_t v, Z3_sort ty);
static Z3_sort (*qeval_p_Z3_mk_int_sort)(Z3_context c);
static Z3_ast (*qeval_p_Z3_mk_is_int)(Z3_context c, Z3_ast t1);
static Z3_ast (*qeval_p_Z3_mk_ite)(Z3_context c, Z3_ast t1, Z3_ast t2, Z3_ast t3);
static Z3_ast (*qeval_p_Z3_mk_le)(Z3_context c, Z3_ast t1, Z3_ast t2);
static Z3_ast (*qeval_p_Z3_mk_lt)(Z3_context c, Z3_ast t1, Z3_ast t2);
static Z3_ast (*qeval_p_Z3_mk_mul)(Z3_context c, unsigned num_args, Z3_ast const args[]);
static Z3_ast (*qeval_p_Z3_mk_not)(Z3_context c, Z3_ast a);
static Z3_ast (*qeval_p_Z3_mk_numeral)(Z3_context c, Z3_string numeral, Z3_sort ty);
static Z3_ast (*qeval_p_Z3_mk_or)(Z3_context c, unsigned num_args, Z3_ast const args[]);
static Z3_sort (*qeval_p_Z3_mk_real_sort)(Z3_context c);
static Z3_solver (*qeval_p_Z3_mk_solver)(Z3_context c);
static Z3_symbol (*qeval_p_Z3_mk_string_symbol)(Z3_context c, Z3_string s);
static Z3_ast (*qeval_p_Z3_mk_sub)(Z3_context c, unsigned num_args, Z3_ast const args[]);
static Z3_ast (*qeval_p_Z3_mk_true)(Z3_context c);
static Z3_ast (*qeval_p_Z3_mk_unary_minus)(Z3_context c, Z3_ast arg);
static void (*qeval_p_Z3_model_dec_ref)(Z3_context c, Z3_model m);
static bool (*qeval_p_Z3_model_eval)(Z3_context c, Z3_model m, Z3_ast t, bool model_completion, Z3_ast * v);
static void (*qeval_p_Z3_model_inc_ref)(Z3_context c, Z3_model m);
static void (*qeval_p_Z3_set_error_handler)(Z3_context c, Z3_error_handler h);
static void (*qeval_p_Z3_set_param_value)(Z3_config c, Z3_string param_id, Z3_string param_value);
static void (*qeval_p_Z3_solver_assert)(Z3_context c, Z3_solver s, Z3_ast a);
static Z3_lbool (*qeval_p_Z3_solver_check)(Z3_context c, Z3_solver s);
static void (*qeval_p_Z3_solver_dec_ref)(Z3_context c, Z3_solver s);
static Z3_model (*qeval_p_Z3_solver_get_model)(Z3_context c, Z3_solver s);
static Z3_string (*qeval_p_Z3_solver_get_reason_unknown)(Z3_context c, Z3_solver s);
static void (*qeval_p_Z3_solver_inc_ref)(Z3_context c, Z3_solver s);
static void (*qeval_p_Z3_solver_pop)(Z3_context c, Z3_solver s, unsigned n);
static void (*qeval_p_Z3_solver_push)(Z3_context c, Z3_solver s);

// qeval_z3_load opens libz3 and finds every function; it returns NULL, or the name of
// what is missing.
static const char *qeval_z3_load(void) {
	void *h = dlopen("libz3.so.4", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) h = dlopen("libz3.so", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) return "libz3.so.4";
	if ((*(void **)&qeval_p_Z3_ast_to_string = dlsym(h, "Z3_ast_to_string")) == NULL) return "Z3_ast_to_string";
	if ((*(void **)&qeval_p_Z3_del_config = dlsym(h, "Z3_del_config")) == NULL) return "Z3_del_config";
	if ((*(void **)&qeval_p_Z3_del_context = dlsym(h, "Z3_del_context")) == NULL) return "Z3_del_context";
	if ((*(void **)&qeval_p_Z3_get_bool_value = dlsym(h, "Z3_get_bool_value")) == NULL) return "Z3_get_bool_value";
	if ((*(void **)&qeval_p_Z3_get_error_code = dlsym(h, "Z3_get_error_code")) == NULL) return "Z3_get_error_code";
	if ((*(void **)&qeval_p_Z3_get_error_msg = dlsym(h, "Z3_get_error_msg")) == NULL) return "Z3_get_error_msg";
	if ((*(void **)&qeval_p_Z3_get_numeral_string = dlsym(h, "Z3_get_numeral_string")) == NULL) return "Z3_get_numeral_string";
	if ((*(void **)&qeval_p_Z3_global_param_set = dlsym(h, "Z3_global_param_set")) == NULL) return "Z3_global_param_set";
	if ((*(void **)&qeval_p_Z3_interrupt = dlsym(h, "Z3_interrupt")) == NULL) return "Z3_interrupt";
	if ((*(void **)&qeval_p_Z3_is_numeral_ast = dlsym(h, "Z3_is_numeral_ast")) == NULL) return "Z3_is_numeral_ast";
	if ((*(void **)&qeval_p_Z3_mk_add = dlsym(h, "Z3_mk_add")) == NULL) return "Z3_mk_add";
	if ((*(void **)&qeval_p_Z3_mk_and = dlsym(h, "Z3_mk_and")) == NULL) return "Z3_mk_and";
	if ((*(void **)&qeval_p_Z3_mk_app = dlsym(h, "Z3_mk_app")) == NULL) return "Z3_mk_app";
	if ((*(void **)&qeval_p_Z3_mk_bool_sort = dlsym(h, "Z3_mk_bool_sort")) == NULL) return "Z3_mk_bool_sort";
	if ((*(void **)&qeval_p_Z3_mk_config = dlsym(h, "Z3_mk_config")) == NULL) return "Z3_mk_config";
	if ((*(void **)&qeval_p_Z3_mk_const = dlsym(h, "Z3_mk_const")) == NULL) return "Z3_mk_const";
	if ((*(void **)&qeval_p_Z3_mk_context = dlsym(h, "Z3_mk_context")) == NULL) return "Z3_mk_context";
	if ((*(void **)&qeval_p_Z3_mk_div = dlsym(h, "Z3_mk_div")) == NULL) return "Z3_mk_div";
	if ((*(void **)&qeval_p_Z3_mk_eq = dlsym(h, "Z3_mk_eq")) == NULL) return "Z3_mk_eq";
	if ((*(void **)&qeval_p_Z3_mk_false = dlsym(h, "Z3_mk_false")) == NULL) return "Z3_mk_false";
	if ((*(void **)&qeval_p_Z3_mk_func_decl = dlsym(h, "Z3_mk_func_decl")) == NULL) return "Z3_mk_func_decl";
	if ((*(void **)&qeval_p_Z3_mk_ge = dlsym(h, "Z3_mk_ge")) == NULL) return "Z3_mk_ge";
	if ((*(void **)&qeval_p_Z3_mk_gt = dlsym(h, "Z3_mk_gt")) == NULL) return "Z3_mk_gt";
	if ((*(void **)&qeval_p_Z3_mk_iff = dlsym(h, "Z3_mk_iff")) == NULL) return "Z3_mk_iff";
	if ((*(void **)&qeval_p_Z3_mk_implies = dlsym(h, "Z3_mk_implies")) == NULL) return "Z3_mk_implies";
	if ((*(void **)&qeval_p_Z3_mk_int2real = dlsym(h, "Z3_mk_int2real")) == NULL) return "Z3_mk_int2real";
	if ((*(void **)&qeval_p_Z3_mk_int64 = dlsym(h, "Z3_mk_int64")) == NULL) return "Z3_mk_int64";
	if ((*(void **)&qeval_p_Z3_mk_int_sort = dlsym(h, "Z3_mk_int_sort")) == NULL) return "Z3_mk_int_sort";
	if ((*(void **)&qeval_p_Z3_mk_is_int = dlsym(h, "Z3_mk_is_int")) == NULL) return "Z3_mk_is_int";
	if ((*(void **)&qeval_p_Z3_mk_ite = dlsym(h, "Z3_mk_ite")) == NULL) return "Z3_mk_ite";
	if ((*(void **)&qeval_p_Z3_mk_le = dlsym(h, "Z3_mk_le")) == NULL) return "Z3_mk_le";
	if ((*(void **)&qeval_p_Z3_mk_lt = dlsym(h, "Z3_mk_lt")) == NULL) return "Z3_mk_lt";
	if ((*(void **)&qeval_p_Z3_mk_mul = dlsym(h, "Z3_mk_mul")) == NULL) return "Z3_mk_mul";
	if ((*(void **)&qeval_p_Z3_mk_not = dlsym(h, "Z3_mk_not")) == NULL) return "Z3_mk_not";
	if ((*(void **)&qeval_p_Z3_mk_numeral = dlsym(h, "Z3_mk_numeral")) == NULL) return "Z3_mk_numeral";
	if ((*(void **)&qeval_p_Z3_mk_or = dlsym(h, "Z3_mk_or")) == NULL) return "Z3_mk_or";
	if ((*(void **)&qeval_p_Z3_mk_real_sort = dlsym(h, "Z3_mk_real_sort")) == NULL) return "Z3_mk_real_sort";
	if ((*(void **)&qeval_p_Z3_mk_solver = dlsym(h, "Z3_mk_solver")) == NULL) return "Z3_mk_solver";
	if ((*(void **)&qeval_p_Z3_mk_string_symbol = dlsym(h, "Z3_mk_string_symbol")) == NULL) return "Z3_mk_string_symbol";
	if ((*(void **)&qeval_p_Z3_mk_sub = dlsym(h, "Z3_mk_sub")) == NULL) return "Z3_mk_sub";
	if ((*(void **)&qeval_p_Z3_mk_true = dlsym(h, "Z3_mk_true")) == NULL) return "Z3_mk_true";
	if ((*(void **)&qeval_p_Z3_mk_unary_minus = dlsym(h, "Z3_mk_unary_minus")) == NULL) return "Z3_mk_unary_minus";
	if ((*(void **)&qeval_p_Z3_model_dec_ref = dlsym(h, "Z3_model_dec_ref")) == NULL) return "Z3_model_dec_ref";
	if ((*(void **)&qeval_p_Z3_model_eval = dlsym(h, "Z3_model_eval")) == NULL) return "Z3_model_eval";
	if ((*(void **)&qeval_p_Z3_model_inc_ref = dlsym(h, "Z3_model_inc_ref")) == NULL) return "Z3_model_inc_ref";
	if ((*(void **)&qeval_p_Z3_set_error_handler = dlsym(h, "Z3_set_error_handler")) == NULL) return "Z3_set_error_handler";
	if ((*(void **)&qeval_p_Z3_set_param_value = dlsym(h, "Z3_set_param_value")) == NULL) return "Z3_set_param_value";
	if ((*(void **)&qeval_p_Z3_solver_assert = dlsym(h, "Z3_solver_assert")) == NULL) return "Z3_solver_assert";
	if ((*(void **)&qeval_p_Z3_solver_check = dlsym(h, "Z3_solver_check")) == NULL) return "Z3_solver_check";
	if ((*(void **)&qeval_p_Z3_solver_dec_ref = dlsym(h, "Z3_solver_dec_ref")) == NULL) return "Z3_solver_dec_ref";
	if ((*(void **)&qeval_p_Z3_solver_get_model = dlsym(h, "Z3_solver_get_model")) == NULL) return "Z3_solver_get_model";
	if ((*(void **)&qeval_p_Z3_solver_get_reason_unknown = dlsym(h, "Z3_solver_get_reason_unknown")) == NULL) return "Z3_solver_get_reason_unknown";
	if ((*(void **)&qeval_p_Z3_solver_inc_ref = dlsym(h, "Z3_solver_inc_ref")) == NULL) return "Z3_solver_inc_ref";
	if ((*(void **)&qeval_p_Z3_solver_pop = dlsym(h, "Z3_solver_pop")) == NULL) return "Z3_solver_pop";
	if ((*(void **)&qeval_p_Z3_solver_push = dlsym(h, "Z3_solver_push")) == NULL) return "Z3_solver_push";
	return NULL;
}

static inline Z3_string Z3_ast_to_string(Z3_context c, Z3_ast a) { return qeval_p_Z3_ast_to_string(c, a); }
static inline void Z3_del_config(Z3_config c) { qeval_p_Z3_del_config(c); }
static inline void Z3_del_context(Z3_context c) { qeval_p_Z3_del_context(c); }
static inline Z3_lbool Z3_get_bool_value(Z3_context c, Z3_ast a) { return qeval_p_Z3_get_bool_value(c, a); }
static inline Z3_error_code Z3_get_error_code(Z3_context c) { return qeval_p_Z3_get_error_code(c); }
static inline Z3_string Z3_get_error_msg(Z3_context c, Z3_error_code err) { return qeval_p_Z3_get_error_msg(c, err); }
static inline Z3_string Z3_get_numeral_string(Z3_context c, Z3_ast a) { return qeval_p_Z3_get_numeral_string(c, a); }
static inline void Z3_global_param_set(Z3_string param_id, Z3_string param_value) { qeval_p_Z3_global_param_set(param_id, param_value); }
static inline void Z3_interrupt(Z3_context c) { qeval_p_Z3_interrupt(c); }
static inline bool Z3_is_numeral_ast(Z3_context c, Z3_ast a) { return qeval_p_Z3_is_numeral_ast(c, a); }
static inline Z3_ast Z3_mk_add(Z3_context c, unsigned num_args, Z3_ast const args[]) { return qeval_p_Z3_mk_add(c, num_args, args); }
static inline Z3_ast Z3_mk_and(Z3_context c, unsigned num_args, Z3_ast const args[]) { return qeval_p_Z3_mk_and(c, num_args, args); }
static inline Z3_ast Z3_mk_app(Z3_context c, Z3_func_decl d, unsigned num_args, Z3_ast const args[]) { return qeval_p_Z3_mk_app(c, d, num_args, args); }
static inline Z3_sort Z3_mk_bool_sort(Z3_context c) { return qeval_p_Z3_mk_bool_sort(c); }
static inline Z3_config Z3_mk_config(void) { return qeval_p_Z3_mk_config(); }
static inline Z3_ast Z3_mk_const(Z3_context c, Z3_symbol s, Z3_sort ty) { return qeval_p_Z3_mk_const(c, s, ty); }
static inline Z3_context Z3_mk_context(Z3_config c) { return qeval_p_Z3_mk_context(c); }
static inline Z3_ast Z3_mk_div(Z3_context c, Z3_ast arg1, Z3_ast arg2) { return qeval_p_Z3_mk_div(c, arg1, arg2); }
static inline Z3_ast Z3_mk_eq(Z3_context c, Z3_ast l, Z3_ast r) { return qeval_p_Z3_mk_eq(c, l, r); }
static inline Z3_ast Z3_mk_false(Z3_context c) { return qeval_p_Z3_mk_false(c); }
static inline Z3_func_decl Z3_mk_func_decl(Z3_context c, Z3_symbol s, unsigned domain_size, Z3_sort const domain[], Z3_sort range) { return qeval_p_Z3_mk_func_decl(c, s, domain_size, domain, range); }
static inline Z3_ast Z3_mk_ge(Z3_context c, Z3_ast t1, Z3_ast t2) { return qeval_p_Z3_mk_ge(c, t1, t2); }
static inline Z3_ast Z3_mk_gt(Z3_context c, Z3_ast t1, Z3_ast t2) { return qeval_p_Z3_mk_gt(c, t1, t2); }
static inline Z3_ast Z3_mk_iff(Z3_context c, Z3_ast t1, Z3_ast t2) { return qeval_p_Z3_mk_iff(c, t1, t2); }
static inline Z3_ast Z3_mk_implies(Z3_context c, Z3_ast t1, Z3_ast t2) { return qeval_p_Z3_mk_implies(c, t1, t2); }
static inline Z3_ast Z3_mk_int2real(Z3_context c, Z3_ast t1) { return qeval_p_Z3_mk_int2real(c, t1); }
static inline Z3_ast Z3_mk_int64(Z3_context c, int64_t v, Z3_sort ty) { return qeval_p_Z3_mk_int64(c, v, ty); }
static inline Z3_sort Z3_mk_int_sort(Z3_context c) { return qeval_p_Z3_mk_int_sort(c); }
static inline Z3_ast Z3_mk_is_int(Z3_context c, Z3_ast t1) { return qeval_p_Z3_mk_is_int(c, t1); }
static inline Z3_ast Z3_mk_ite(Z3_context c, Z3_ast t1, Z3_ast t2, Z3_ast t3) { return qeval_p_Z3_mk_ite(c, t1, t2, t3); }
static inline Z3_ast Z3_mk_le(Z3_context c, Z3_ast t1, Z3_ast t2) { return qeval_p_Z3_mk_le(c, t1, t2); }
static inline Z3_ast Z3_mk_lt(Z3_context c, Z3_ast t1, Z3_ast t2) { return qeval_p_Z3_mk_lt(c, t1, t2); }
static inline Z3_ast Z3_mk_mul(Z3_context c, unsigned num_args, Z3_ast const args[]) { return qeval_p_Z3_mk_mul(c, num_args, args); }
static inline Z3_ast Z3_mk_not(Z3_context c, Z3_ast a) { return qeval_p_Z3_mk_not(c, a); }
static inline Z3_ast Z3_mk_numeral(Z3_context c, Z3_string numeral, Z3_sort ty) { return qeval_p_Z3_mk_numeral(c, numeral, ty); }
static inline Z3_ast Z3_mk_or(Z3_context c, unsigned num_args, Z3_ast const args[]) { return qeval_p_Z3_mk_or(c, num_args, args); }
static inline Z3_sort Z3_mk_real_sort(Z3_context c) { return qeval_p_Z3_mk_real_sort(c); }
static inline Z3_solver Z3_mk_solver(Z3_context c) { return qeval_p_Z3_mk_solver(c); }
static inline Z3_symbol Z3_mk_string_symbol(Z3_context c, Z3_string s) { return qeval_p_Z3_mk_string_symbol(c, s); }
static inline Z3_ast Z3_mk_sub(Z3_context c, unsigned num_args, Z3_ast const args[]) { return qeval_p_Z3_mk_sub(c, num_args, args); }
static inline Z3_ast Z3_mk_true(Z3_context c) { return qeval_p_Z3_mk_true(c); }
static inline Z3_ast Z3_mk_unary_minus(Z3_context c, Z3_ast arg) { return qeval_p_Z3_mk_unary_minus(c, arg); }
static inline void Z3_model_dec_ref(Z3_context c, Z3_model m) { qeval_p_Z3_model_dec_ref(c, m); }
static inline bool Z3_model_eval(Z3_context c, Z3_model m, Z3_ast t, bool model_completion, Z3_ast * v) { return qeval_p_Z3_model_eval(c, m, t, model_completion, v); }
static inline void Z3_model_inc_ref(Z3_context c, Z3_model m) { qeval_p_Z3_model_inc_ref(c, m); }
static inline void Z3_set_error_handler(Z3_context c, Z3_error_handler h) { qeval_p_Z3_set_error_handler(c, h); }
static inline void Z3_set_param_value(Z3_config c, Z3_string param_id, Z3_string param_value) { qeval_p_Z3_set_param_value(c, param_id, param_value); }
static inline void Z3_solver_assert(Z3_context c, Z3_solver s, Z3_ast a) { qeval_p_Z3_solver_assert(c, s, a); }
static inline Z3_lbool Z3_solver_check(Z3_context c, Z3_solver s) { return qeval_p_Z3_solver_check(c, s); }
static inline void Z3_solver_dec_ref(Z3_context c, Z3_solver s) { qeval_p_Z3_solver_dec_ref(c, s); }
static inline Z3_model Z3_solver_get_model(Z3_context c, Z3_solver s) { return qeval_p_Z3_solver_get_model(c, s); }
static inline Z3_string Z3_solver_get_reason_unknown(Z3_context c, Z3_solver s) { return qeval_p_Z3_solver_get_reason_unknown(c, s); }
static inline void Z3_solver_inc_ref(Z3_context c, Z3_solver s) { qeval_p_Z3_solver_inc_ref(c, s); }
static inline void Z3_solver_pop(Z3_context c, Z3_solver s, unsigned n) { qeval_p_Z3_solver_pop(c, s, n); }
static inline void Z3_solver_push(Z3_context c, Z3_solver s) { qeval_p_Z3_solver_push(c, s); }
