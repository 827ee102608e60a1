package qeval

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Kind is the type of a Value. The set is closed, like database/sql/driver.Value.
type Kind uint8

// The kinds of Value.
const (
	KindNull Kind = iota
	KindInt
	KindFloat
	KindText
	KindBytes
	KindBool
	KindTime
)

var kindNames = [...]string{"null", "int", "float", "text", "bytes", "bool", "time"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one cell of a result set. Only the field that belongs to Kind is set:
// Int for int, bool (0 or 1) and time (Unix nanoseconds, UTC); Float for float;
// Str for text and bytes.
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Str   string
}

// Null is the SQL NULL.
var Null = Value{}

// Int returns an integer value.
func Int(i int64) Value { return Value{Kind: KindInt, Int: i} }

// Float returns a floating-point value.
func Float(f float64) Value { return Value{Kind: KindFloat, Float: f} }

// Text returns a text value.
func Text(s string) Value { return Value{Kind: KindText, Str: s} }

// Bytes returns a binary value.
func Bytes(b []byte) Value { return Value{Kind: KindBytes, Str: string(b)} }

// OwnedBytes is Bytes without the copy, for a buffer the caller owns and never changes
// again (a driver that allocates every value it returns afresh): a result of large blobs
// then takes their size once, not twice.
func OwnedBytes(b []byte) Value {
	return Value{Kind: KindBytes, Str: unsafe.String(unsafe.SliceData(b), len(b))}
}

// Bool returns a boolean value.
func Bool(b bool) Value {
	if b {
		return Value{Kind: KindBool, Int: 1}
	}
	return Value{Kind: KindBool}
}

// Time returns a timestamp value, kept in UTC with nanosecond precision.
func Time(t time.Time) Value { return Value{Kind: KindTime, Int: t.UnixNano()} }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.Kind == KindNull }

// AsTime returns the time of a KindTime value.
func (v Value) AsTime() time.Time { return time.Unix(0, v.Int).UTC() }

// String renders v for people: NULL, numbers in their shortest form, text as is.
func (v Value) String() string {
	switch v.Kind {
	case KindNull:
		return "NULL"
	case KindInt:
		return strconv.FormatInt(v.Int, 10)
	case KindFloat:
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	case KindText:
		return v.Str
	case KindBytes:
		return "x'" + hexString(v.Str) + "'"
	case KindBool:
		if v.Int != 0 {
			return "true"
		}
		return "false"
	case KindTime:
		return v.AsTime().Format(time.RFC3339Nano)
	}
	return "?"
}

func hexString(s string) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 2*len(s))
	for i := 0; i < len(s); i++ {
		b[2*i] = digits[s[i]>>4]
		b[2*i+1] = digits[s[i]&15]
	}
	return string(b)
}

// MarshalJSON writes NULL as null, numbers as numbers (non-finite floats as strings),
// text as a string, bytes as base64, booleans as booleans and times as RFC 3339 UTC.
func (v Value) MarshalJSON() ([]byte, error) {
	switch v.Kind {
	case KindNull:
		return []byte("null"), nil
	case KindInt:
		return strconv.AppendInt(nil, v.Int, 10), nil
	case KindFloat:
		if math.IsInf(v.Float, 0) || math.IsNaN(v.Float) {
			return json.Marshal(strconv.FormatFloat(v.Float, 'g', -1, 64))
		}
		return strconv.AppendFloat(nil, v.Float, 'g', -1, 64), nil
	case KindText:
		return json.Marshal(v.Str)
	case KindBytes:
		return json.Marshal(base64.StdEncoding.EncodeToString([]byte(v.Str)))
	case KindBool:
		return json.Marshal(v.Int != 0)
	case KindTime:
		return json.Marshal(v.AsTime().Format(time.RFC3339Nano))
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads what MarshalJSON writes, as far as JSON can tell kinds apart:
// whole numbers become ints, other numbers floats, strings text, booleans bools.
func (v *Value) UnmarshalJSON(b []byte) error {
	var x any
	d := json.NewDecoder(bytesReader(b))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return err
	}
	*v = FromJSON(x)
	return nil
}

// FromJSON converts a decoded JSON value (decoded with UseNumber or not) to a Value.
// Objects and arrays become their compact JSON text.
func FromJSON(x any) Value {
	switch t := x.(type) {
	case nil:
		return Null
	case bool:
		return Bool(t)
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return Int(i)
		}
		f, _ := strconv.ParseFloat(string(t), 64)
		return Float(f)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return Int(int64(t))
		}
		return Float(t)
	case string:
		return Text(t)
	default:
		b, _ := json.Marshal(t)
		return Text(string(b))
	}
}

// ParseDecimal reads the text of an exact number, as servers send NUMERIC and DECIMAL:
// an int when it is integral and fits in 64 bits, else a float (NaN and infinities
// included). ok is false for text that is not a number.
func ParseDecimal(s string) (v Value, ok bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Int(i), true
	}
	if dot := strings.IndexByte(s, '.'); dot >= 0 && strings.Trim(s[dot+1:], "0") == "" {
		if i, err := strconv.ParseInt(s[:dot], 10, 64); err == nil {
			return Int(i), true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return Value{}, false
	}
	return Float(f), true
}

// A Value holds a time as Unix nanoseconds in an int64: years 1678 to 2261.
var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

// TimeFits reports whether t can be held by a time Value (see Time); a time outside
// that range is returned as text by the executors.
func TimeFits(t time.Time) bool { return !t.Before(minTime) && !t.After(maxTime) }

// ValueOverhead is what one Value costs in memory besides the bytes of its text, and
// RowOverhead what a row costs besides its values (its slice header). Executors count
// both towards Limits.MaxBytes, so the cap tracks the memory a result really takes.
const (
	ValueOverhead = int64(unsafe.Sizeof(Value{}))
	RowOverhead   = int64(unsafe.Sizeof([]Value(nil)))
)
