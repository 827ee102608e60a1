package kqlexec

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Storage in SQLite, by type: string TEXT (never NULL), long/int/bool INTEGER, real
// and decimal REAL, datetime and timespan INTEGER ticks, guid TEXT, dynamic TEXT
// holding compact JSON (SQL NULL for a null dynamic).
//
// A real NaN is stored as the TEXT 'NaN' (nanText): SQLite turns a NaN double into
// NULL, and Kusto keeps NaN apart from null (isnan, isnull, avg of no values). The Go
// functions decode it back to NaN; SQL arithmetic and comparisons on columns guard for
// it (see nanGuard).
//
// At run time the Go functions see decoded values: nil, string, int64, float64, bool,
// Datetime, Timespan, Guid or Dyn.

// Dyn is a dynamic value at run time: what encoding/json decodes with UseNumber (nil,
// bool, json.Number, string, []any, map[string]any).
type Dyn struct{ V any }

// decode converts a stored SQLite value of type t to its run-time form.
func decode(v any, t Type) any {
	if b, ok := v.([]byte); ok {
		v = string(b)
		if b == nil {
			v = nil // the driver passes a NULL argument as a nil []byte
		}
	}
	if v == nil {
		if t == TString {
			return ""
		}
		return nil
	}
	switch t {
	case TString:
		switch x := v.(type) {
		case string:
			return x
		case int64:
			return strconv.FormatInt(x, 10)
		case float64:
			return formatReal(x)
		}
	case TLong, TInt:
		switch x := v.(type) {
		case int64:
			return x
		case float64:
			return int64(x)
		case string:
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				return n
			}
			return nil
		}
	case TReal, TDecimal:
		switch x := v.(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		case string:
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return f
			}
			return nil
		}
	case TBool:
		switch x := v.(type) {
		case int64:
			return x != 0
		case float64:
			return x != 0
		}
	case TDatetime:
		switch x := v.(type) {
		case int64:
			return Datetime(x)
		case float64:
			return Datetime(int64(x))
		}
	case TTimespan:
		switch x := v.(type) {
		case int64:
			return Timespan(x)
		case float64:
			return Timespan(int64(x))
		}
	case TGuid:
		if s, ok := v.(string); ok {
			return Guid(s)
		}
	case TDynamic:
		if s, ok := v.(string); ok {
			return Dyn{parseJSONCached(s)}
		}
		return Dyn{toJSONValue(v)}
	}
	return nil
}

// nanText is how a real NaN is stored.
const nanText = "NaN"

// bigJSON caches the last large JSON texts decoded: mv-expand reads the same array once
// per element. Decoded values are never modified in place (functions copy first).
var bigJSON struct {
	sync.Mutex
	keys [4]string
	vals [4]any
	next int
}

func parseJSONCached(s string) any {
	if len(s) < 4096 {
		return parseJSON(s)
	}
	bigJSON.Lock()
	for i, k := range bigJSON.keys {
		if k == s {
			v := bigJSON.vals[i]
			bigJSON.Unlock()
			return v
		}
	}
	bigJSON.Unlock()
	v := parseJSON(s)
	bigJSON.Lock()
	bigJSON.keys[bigJSON.next], bigJSON.vals[bigJSON.next] = s, v
	bigJSON.next = (bigJSON.next + 1) % len(bigJSON.keys)
	bigJSON.Unlock()
	return v
}

// encode converts a run-time value to the storage of type t; values of another kind
// are converted as KQL would convert them, and unconvertible ones become null.
func encode(v any, t Type) any {
	if t == TString {
		if v == nil {
			return ""
		}
		return toString(v)
	}
	if d, ok := v.(Dyn); ok && t != TDynamic {
		v = d.V
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				v = i
			} else if f, err := n.Float64(); err == nil {
				v = f
			}
		}
	}
	if v == nil {
		if t == TString {
			return ""
		}
		return nil
	}
	switch t {
	case TString:
		return toString(v)
	case TLong, TInt:
		if i, ok := toLong(v); ok {
			if t == TInt {
				return int64(int32(i))
			}
			return i
		}
		return nil
	case TReal, TDecimal:
		if f, ok := toReal(v); ok {
			if math.IsNaN(f) {
				return nanText
			}
			return f
		}
		return nil
	case TBool:
		if b, ok := toBool(v); ok {
			if b {
				return int64(1)
			}
			return int64(0)
		}
		return nil
	case TDatetime:
		if d, ok := toDatetime(v); ok {
			return int64(d)
		}
		return nil
	case TTimespan:
		if d, ok := toTimespan(v); ok {
			return int64(d)
		}
		return nil
	case TGuid:
		if g, ok := toGuid(v); ok {
			return string(g)
		}
		return nil
	case TDynamic:
		j := toJSONValue(v)
		if j == nil {
			return nil
		}
		return jsonText(j)
	}
	return nil
}

// parseJSON decodes JSON text; text that is not JSON becomes a JSON string.
func parseJSON(s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil || d.More() {
		return s
	}
	return x
}

// jsonText encodes a JSON value compactly, without HTML escaping.
func jsonText(v any) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// toJSONValue converts a run-time value to a JSON value, as KQL puts it in a dynamic.
func toJSONValue(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case Dyn:
		return x.V
	case string:
		return x
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case int:
		return json.Number(strconv.Itoa(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return formatReal(x)
		}
		return json.Number(jsonReal(x))
	case bool:
		return x
	case Datetime:
		return x.String()
	case Timespan:
		return x.String()
	case Guid:
		return string(x)
	case []any, map[string]any, json.Number:
		return x
	}
	return nil
}

// jsonReal writes a real so that it reads back as a real (42.0, not 42).
func jsonReal(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// formatReal formats a real as Kusto's tostring does (.NET's shortest round-trip form).
func formatReal(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	a := math.Abs(f)
	if a == 0 || (a >= 1e-5 && a < 1e15) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	sign := exp[0]
	digits := strings.TrimLeft(exp[1:], "0")
	if len(digits) < 2 {
		digits = strings.Repeat("0", 2-len(digits)) + digits
	}
	return mant + "E" + string(sign) + digits
}

// toString converts any run-time value to a string, as tostring() does.
func toString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return formatReal(x)
	case bool:
		if x {
			return "true"
		}
		return "false"
	case Datetime:
		return x.String()
	case Timespan:
		return x.String()
	case Guid:
		return string(x)
	case Dyn:
		switch y := x.V.(type) {
		case nil:
			return ""
		case string:
			return y
		case json.Number:
			return string(y)
		case bool:
			return toString(y)
		}
		return jsonText(x.V)
	case json.Number:
		return string(x)
	case []any, map[string]any:
		return jsonText(x)
	}
	return ""
}

func toLong(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
		return int64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case Datetime:
		return int64(x), true
	case Timespan:
		return int64(x), true
	case string:
		s := strings.TrimSpace(x)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return int64(f), true
		}
	case json.Number:
		return toLong(string(x))
	case Dyn:
		return toLong(x.V)
	}
	return 0, false
}

func toReal(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case Datetime:
		return float64(x), true
	case Timespan:
		return float64(x), true
	case string:
		s := strings.TrimSpace(x)
		switch strings.ToLower(s) {
		case "nan":
			return math.NaN(), true
		case "infinity", "+infinity", "inf":
			return math.Inf(1), true
		case "-infinity", "-inf":
			return math.Inf(-1), true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f, true
		}
	case json.Number:
		return toReal(string(x))
	case Dyn:
		return toReal(x.V)
	}
	return 0, false
}

func toBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case int64:
		return x != 0, true
	case float64:
		return x != 0, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1":
			return true, true
		case "false", "0":
			return false, true
		}
	case json.Number:
		f, err := x.Float64()
		return f != 0, err == nil
	case Dyn:
		return toBool(x.V)
	}
	return false, false
}

func toDatetime(v any) (Datetime, bool) {
	switch x := v.(type) {
	case Datetime:
		return x, true
	case string:
		return parseDatetime(x)
	case Dyn:
		return toDatetime(x.V)
	case int64:
		return Datetime(x), true
	}
	return 0, false
}

func toTimespan(v any) (Timespan, bool) {
	switch x := v.(type) {
	case Timespan:
		return x, true
	case string:
		return parseTimespan(x)
	case int64:
		return Timespan(x), true
	case float64:
		return Timespan(int64(x)), true
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return Timespan(i), true
		}
	case Dyn:
		return toTimespan(x.V)
	}
	return 0, false
}

func toGuid(v any) (Guid, bool) {
	switch x := v.(type) {
	case Guid:
		return x, true
	case string:
		return parseGuid(x)
	case Dyn:
		return toGuid(x.V)
	}
	return "", false
}

func parseGuid(s string) (Guid, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	hex := strings.ReplaceAll(s, "-", "")
	if len(hex) != 32 {
		return "", false
	}
	for _, c := range hex {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return "", false
		}
	}
	h := strings.ToLower(hex)
	return Guid(h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]), true
}

// toDyn converts a run-time value to a dynamic one.
func toDyn(v any) Dyn {
	if d, ok := v.(Dyn); ok {
		return d
	}
	return Dyn{toJSONValue(v)}
}
