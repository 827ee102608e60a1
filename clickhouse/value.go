package clickhouse

import (
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"strconv"

	"github.com/qeval/qeval"
)

// convert turns one scanned value into a qeval.Value: integers ints (UInt64 past the
// int64 range floats), Float32/Float64 floats, Decimal an int when integral, else a
// float, String and FixedString text, Date and DateTime times in UTC, Nullable NULL or
// its value, arrays, tuples and maps JSON text, UUID and IP addresses text.
func convert(v any) qeval.Value {
	if qv, ok := qeval.FromGo(v); ok {
		return qv
	}
	switch x := v.(type) {
	case net.IP:
		return qeval.Text(x.String())
	case fmt.Stringer:
		// decimals (shopspring/decimal), UUIDs
		s := x.String()
		if reflect.TypeOf(v).Name() == "Decimal" {
			if d, ok := qeval.ParseDecimal(s); ok {
				return d
			}
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return qeval.Float(f)
			}
		}
		return qeval.Text(s)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return qeval.Null
		}
		return convert(rv.Elem().Interface())
	}
	if b, err := json.Marshal(v); err == nil {
		return qeval.Text(string(b))
	}
	return qeval.Text(fmt.Sprint(v))
}
