package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/qeval/qeval"
)

// Codes the HTTP layer adds to qeval's own. They are written on the wire like them.
const (
	codeUnauthorized qeval.Code = "unauthorized"
	codeConflict     qeval.Code = "conflict"
	codeMethod       qeval.Code = "method_not_allowed"
	codeMediaType    qeval.Code = "unsupported_media_type"
)

// statusOf is the one table from error code to HTTP status. A code not in it is an
// internal error: the client reads "internal error" and the log keeps the rest.
var statusOf = map[qeval.Code]int{
	qeval.CodeInvalid:     http.StatusBadRequest,
	qeval.CodeQuery:       http.StatusBadRequest,
	qeval.CodeUnsupported: http.StatusBadRequest,
	qeval.CodeCompile:     http.StatusBadRequest,
	codeUnauthorized:      http.StatusUnauthorized,
	qeval.CodeForbidden:   http.StatusForbidden,
	qeval.CodeNotFound:    http.StatusNotFound,
	codeMethod:            http.StatusMethodNotAllowed,
	qeval.CodeCanceled:    http.StatusConflict,
	codeConflict:          http.StatusConflict,
	qeval.CodeTooLarge:    http.StatusRequestEntityTooLarge,
	codeMediaType:         http.StatusUnsupportedMediaType,
	qeval.CodeUnavailable: http.StatusServiceUnavailable,
	qeval.CodeTimeout:     http.StatusGatewayTimeout,
}

// FieldError is a request error about one field of the body, named as a path
// ("generated_results[2]", "cases[3].database").
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + qeval.ErrorMessage(e.Err) }
func (e *FieldError) Unwrap() error { return e.Err }

// invalid returns a CodeInvalid error about field (which may be "").
func invalid(field, format string, args ...any) error {
	err := &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf(format, args...)}
	if field == "" {
		return err
	}
	return &FieldError{Field: field, Err: err}
}

// errorBody is what every failed request answers.
type errorBody struct {
	Success bool      `json:"success"`
	Error   errorInfo `json:"error"`
}

type errorInfo struct {
	Code    qeval.Code `json:"code"`
	Message string     `json:"message"`
	Field   *string    `json:"field"`
	Hint    string     `json:"hint,omitempty"`
}

// writeError answers err with the status of its code. An error without a known code is
// logged in full and answered as "internal error", so no internal detail leaks.
func writeError(w http.ResponseWriter, log *slog.Logger, r *http.Request, err error) {
	code := qeval.ErrorCode(err)
	status, ok := statusOf[code]
	info := errorInfo{Code: code, Message: qeval.ErrorMessage(err), Hint: qeval.ErrorHint(err)}
	var fe *FieldError
	if errors.As(err, &fe) {
		info.Field = &fe.Field
		info.Message = qeval.ErrorMessage(fe.Err)
	}
	if !ok {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		status, info = http.StatusInternalServerError, errorInfo{Code: qeval.CodeInternal, Message: "internal error"}
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="qeval"`)
	}
	writeJSON(w, status, errorBody{Error: info})
}

// writeJSON writes v as the JSON body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"success":false,"error":{"code":"internal","message":"internal error","field":null}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte{'\n'})
}

// decodeJSON reads exactly one JSON object into v, strictly: an unknown field, a value
// of the wrong type, malformed or trailing data, an empty body and an oversized body
// are all errors written for the client, naming the field where there is one.
func decodeJSON(r *http.Request, v any) error {
	ct := strings.ToLower(strings.TrimSpace(strings.Split(r.Header.Get("Content-Type"), ";")[0]))
	if ct != "" && ct != "application/json" {
		return &qeval.Error{Code: codeMediaType, Message: "unsupported Content-Type " + ct, Hint: "send the body as JSON with Content-Type: application/json"}
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(mbe.Limit)
		}
		return invalid("", "read the request body: %v", err)
	}
	if !utf8.Valid(data) {
		return invalid("", "the body is not valid UTF-8")
	}
	if err := checkDuplicateKeys(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("", "unexpected data after the JSON object")
	}
	return nil
}

func jsonError(err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
		mbe *http.MaxBytesError
	)
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case errors.Is(err, io.EOF):
		return invalid("", "the body is empty: send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("", "malformed JSON: the body ends in the middle of a value")
	case errors.As(err, &syn):
		return invalid("", "malformed JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return invalid("", "the body must be a JSON object, not %s", qeval.JSONValueKind(typ.Value))
		}
		return invalid(field, "%s must be %s", field, qeval.JSONTypeProblem(typ))
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return invalid(name, "unknown field %q", name)
	}
	var qe *qeval.Error
	if errors.As(err, &qe) {
		return err
	}
	return invalid("", "malformed JSON: %s", strings.TrimPrefix(msg, "json: "))
}

func tooLarge(limit int64) error {
	return &qeval.Error{Code: qeval.CodeTooLarge,
		Message: fmt.Sprintf("the request body is larger than the limit of %s", byteSize(limit)),
		Hint:    "split the suite, or start the server with a larger --max-body"}
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// checkDuplicateKeys refuses a JSON document in which an object has the same key
// twice: encoding/json keeps the last, which strict JSON must not do silently (issue
// 23). Malformed JSON is left for the decoder to report.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		keys      map[string]bool
		isObject  bool
		expectKey bool
		path      string
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or a syntax error the decoder reports
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.isObject && top.expectKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return invalid(strings.TrimPrefix(top.path+"."+k, "."), "duplicate key %q", k)
				}
				top.keys[k] = true
				top.expectKey = false
				top.path += "\x00" + k // the key the next value belongs to
				continue
			}
		}
		// a value (or a closing delimiter) in the current container
		valuePath := ""
		if top != nil && top.isObject {
			if i := strings.LastIndexByte(top.path, 0); i >= 0 {
				valuePath = strings.ReplaceAll(top.path, "\x00", ".")
				top.path = top.path[:i]
			}
			top.expectKey = true
		}
		switch d := tok.(type) {
		case json.Delim:
			switch d {
			case '{':
				stack = append(stack, &frame{keys: map[string]bool{}, isObject: true, expectKey: true, path: strings.Trim(valuePath, ".")})
			case '[':
				stack = append(stack, &frame{path: strings.Trim(valuePath, ".")})
			case '}', ']':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].isObject {
					stack[len(stack)-1].expectKey = true
				}
			}
		}
	}
}
