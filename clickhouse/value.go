package clickhouse

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net"
	"reflect"
	"strconv"
	"time"

	"github.com/qeval/qeval"
)

// convert turns one scanned value into a qeval.Value: integers ints (UInt64 past the
// int64 range floats), Float32/Float64 floats, Decimal an int when integral, else a
// float, String and FixedString text, Date and DateTime times in UTC, Nullable NULL or
// its value, arrays, tuples and maps JSON text, UUID and IP addresses text.
func convert(v any) qeval.Value {
	switch x := v.(type) {
	case nil:
		return qeval.Null
	case bool:
		return qeval.Bool(x)
	case int8:
		return qeval.Int(int64(x))
	case int16:
		return qeval.Int(int64(x))
	case int32:
		return qeval.Int(int64(x))
	case int64:
		return qeval.Int(x)
	case int:
		return qeval.Int(int64(x))
	case uint8:
		return qeval.Int(int64(x))
	case uint16:
		return qeval.Int(int64(x))
	case uint32:
		return qeval.Int(int64(x))
	case uint64:
		if x <= math.MaxInt64 {
			return qeval.Int(int64(x))
		}
		return qeval.Float(float64(x))
	case *big.Int:
		if x == nil {
			return qeval.Null
		}
		if x.IsInt64() {
			return qeval.Int(x.Int64())
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		return qeval.Float(f)
	case float32:
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return qeval.Float(f)
	case float64:
		return qeval.Float(x)
	case string:
		return qeval.Text(x)
	case []byte:
		return qeval.Bytes(x)
	case time.Time:
		if qeval.TimeFits(x) {
			return qeval.Time(x.UTC())
		}
		return qeval.Text(x.UTC().Format("2006-01-02 15:04:05.999999"))
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
