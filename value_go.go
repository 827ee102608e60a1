package qeval

import (
	"math"
	"math/big"
	"strconv"
	"time"
)

// FromGo converts a Go value a database driver returns, of one of the kinds every
// driver shares, into a Value: nil; bool; integers of every width (an unsigned or big
// integer past the int64 range becomes a float); float32 (as its shortest decimal, so
// 0.1 stays 0.1) and float64; string; []byte; time.Time (in UTC; text outside the years
// a Value holds). It reports false for anything else, which the driver's own package
// converts.
func FromGo(v any) (Value, bool) {
	switch x := v.(type) {
	case nil:
		return Null, true
	case bool:
		return Bool(x), true
	case int8:
		return Int(int64(x)), true
	case int16:
		return Int(int64(x)), true
	case int32:
		return Int(int64(x)), true
	case int64:
		return Int(x), true
	case int:
		return Int(int64(x)), true
	case uint8:
		return Int(int64(x)), true
	case uint16:
		return Int(int64(x)), true
	case uint32:
		return Int(int64(x)), true
	case uint64:
		if x <= math.MaxInt64 {
			return Int(int64(x)), true
		}
		return Float(float64(x)), true
	case *big.Int:
		if x == nil {
			return Null, true
		}
		if x.IsInt64() {
			return Int(x.Int64()), true
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		return Float(f), true
	case float32:
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return Float(f), true
	case float64:
		return Float(x), true
	case string:
		return Text(x), true
	case []byte:
		return Bytes(x), true
	case time.Time:
		if TimeFits(x) {
			return Time(x.UTC()), true
		}
		return Text(x.UTC().Format("2006-01-02 15:04:05.999999")), true
	}
	return Value{}, false
}
