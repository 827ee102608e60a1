package qeval

// Outcome says how the execution match of one item ended. It is written on the wire
// (reports, --items files) as its string value.
type Outcome string

// The outcomes of an execution match.
const (
	// OutcomeMatch: both queries ran and their results are equal under the mode.
	OutcomeMatch Outcome = "match"
	// OutcomeMismatch: both queries ran and their results differ.
	OutcomeMismatch Outcome = "mismatch"
	// OutcomePredError: the generated query failed (syntax, runtime, forbidden statement).
	OutcomePredError Outcome = "pred_error"
	// OutcomeGoldError: the gold query failed; the item cannot be judged.
	OutcomeGoldError Outcome = "gold_error"
	// OutcomeTimeout: the generated query ran past its deadline.
	OutcomeTimeout Outcome = "timeout"
	// OutcomeTooLarge: the generated query's result or memory went past the caps.
	OutcomeTooLarge Outcome = "too_large"
	// OutcomeCanceled: the run was canceled before the item finished.
	OutcomeCanceled Outcome = "canceled"
	// OutcomeSkipped: the item was not run (for example no generated query).
	OutcomeSkipped Outcome = "skipped"
	// OutcomeUnscorable: the gold query uses something the engine does not support
	// (a KQL function the local engine lacks): the item cannot be scored here, which
	// is not the model's failure. It is counted apart and left out of accuracy.
	OutcomeUnscorable Outcome = "unscorable"
	// OutcomeUnsupported: the generated query uses something the engine does not
	// support: its results could not be compared. The case is scored on its other
	// components and flagged.
	OutcomeUnsupported Outcome = "unsupported"
	// OutcomeCompileError: the generated query is in a language compiled before it
	// runs (Malloy) and its compiler rejected it; Verdict.Error holds the compiler's
	// message with its line and column. The system's failure, as a pred_error is.
	OutcomeCompileError Outcome = "compile_error"
	// OutcomeSetupError: a stateful case's setup (or teardown, or its sandbox copy)
	// failed: the case cannot be judged, which is the suite's failure, never the
	// model's. Counted apart, as a gold_error is.
	OutcomeSetupError Outcome = "setup_error"
)

// Outcomes lists every outcome in report order.
var Outcomes = []Outcome{
	OutcomeMatch, OutcomeMismatch, OutcomePredError, OutcomeGoldError,
	OutcomeTimeout, OutcomeTooLarge, OutcomeCanceled, OutcomeSkipped,
	OutcomeUnscorable, OutcomeUnsupported, OutcomeCompileError, OutcomeSetupError,
}

// Judged says whether an outcome is a verdict on the generated query: false for a
// gold query that failed or is unscorable, a canceled item and an unsupported
// generated query, which are counted apart and left out of accuracy.
func (o Outcome) Judged() bool {
	switch o {
	case OutcomeGoldError, OutcomeCanceled, OutcomeUnscorable, OutcomeUnsupported, OutcomeSetupError:
		return false
	}
	return true
}

// FailedOutcome is the outcome of a query that failed with err: a timeout, a result
// too large, a canceled run, a construct the engine does not support, else def (the
// side's error: pred_error or gold_error). It is the one mapping from errors to
// outcomes every scorer uses.
func FailedOutcome(err error, def Outcome) Outcome {
	switch ErrorCode(err) {
	case CodeTimeout:
		return OutcomeTimeout
	case CodeTooLarge:
		return OutcomeTooLarge
	case CodeCanceled:
		return OutcomeCanceled
	case CodeUnsupported:
		if def == OutcomeGoldError {
			return OutcomeUnscorable
		}
		return OutcomeUnsupported
	case CodeCompile:
		if def == OutcomeGoldError {
			return OutcomeGoldError
		}
		return OutcomeCompileError
	}
	return def
}
