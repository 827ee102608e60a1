package qeval

import (
	"context"
	"errors"
)

// Code classifies an Error. Codes are written on the wire and mapped to HTTP statuses
// and exit codes in one table each.
type Code string

// Error codes.
const (
	CodeInvalid     Code = "invalid"     // bad input: usage, config, suite or request
	CodeNotFound    Code = "not_found"   // a file, database, case or run that does not exist
	CodeQuery       Code = "query"       // the engine rejected or failed the query (syntax, runtime)
	CodeForbidden   Code = "forbidden"   // the query tried to write or escape the sandbox
	CodeTimeout     Code = "timeout"     // a deadline passed
	CodeTooLarge    Code = "too_large"   // a row, byte or memory cap was reached
	CodeCanceled    Code = "canceled"    // the caller canceled the work
	CodeUnsupported Code = "unsupported" // a feature the engine or translator does not have
	CodeCompile     Code = "compile"     // a compiler (Malloy's) rejected the query; Line and Col say where
	CodeUnavailable Code = "unavailable" // a provider or server could not be reached or gave up
	CodeInternal    Code = "internal"    // a bug or an unexpected fault
)

// Error is an error written for a person: Message says what happened, Hint what to do.
// Op names the operation ("execute gold", "open database"); Err is the cause.
// Position fields are set for errors inside a query or file (1-based; 0 when unknown).
type Error struct {
	Code    Code
	Op      string
	Message string
	Hint    string
	Line    int
	Col     int
	Err     error
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Op != "" {
		return e.Op + ": " + msg
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf-style constructors are deliberately absent: build an *Error literal so the code
// is always chosen on purpose.

// ErrorCode returns the code of the first *Error in err's chain. Context errors map to
// CodeTimeout and CodeCanceled; any other non-nil error is CodeInternal.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, context.Canceled):
		return CodeCanceled
	}
	return CodeInternal
}

// ErrorMessage returns the message of the first *Error in err's chain, or err.Error().
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return err.Error()
}

// ErrorHint returns the hint of the first *Error in err's chain that has one.
func ErrorHint(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return ""
		}
		if e.Hint != "" {
			return e.Hint
		}
		err = e.Err
	}
	return ""
}

// IsTimeout reports whether err is a deadline.
func IsTimeout(err error) bool { return ErrorCode(err) == CodeTimeout }

// IsCanceled reports whether err is a cancellation by the caller.
func IsCanceled(err error) bool { return ErrorCode(err) == CodeCanceled }

// IsTooLarge reports whether err is a row, byte or memory cap.
func IsTooLarge(err error) bool { return ErrorCode(err) == CodeTooLarge }
