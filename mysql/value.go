package mysql

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval"
)

// convert turns one value the driver returned, for a column of the given database type
// (as the driver names it: INT, DECIMAL, VARCHAR, BLOB, ...), into a qeval.Value:
// integers become ints (unsigned ones past the int64 range floats); FLOAT and DOUBLE
// floats; DECIMAL an int when it is integral and fits, else a float; BIT an int; the
// binary string types (BINARY, VARBINARY, BLOB, GEOMETRY) bytes; DATE, DATETIME and
// TIMESTAMP times (as UTC; text when they are zero dates or outside the years
// 1678-2261 that a Value can hold); everything else (text types, JSON, TIME, ENUM,
// SET) text. The executor asks the driver for text (no parseTime), so times arrive as
// text too.
func convert(typ string, v any) qeval.Value {
	switch x := v.(type) {
	case nil:
		return qeval.Null
	case int64:
		return qeval.Int(x)
	case uint64:
		if x <= math.MaxInt64 {
			return qeval.Int(int64(x))
		}
		return qeval.Float(float64(x))
	case float32:
		// The shortest decimal that round-trips the float32, read as a float64: 0.1
		// stays 0.1 rather than becoming 0.10000000149011612.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return qeval.Float(f)
	case float64:
		return qeval.Float(x)
	case bool:
		return qeval.Bool(x)
	case time.Time:
		if qeval.TimeFits(x) {
			return qeval.Time(x.UTC())
		}
		return qeval.Text(x.UTC().Format("2006-01-02 15:04:05.999999"))
	case string:
		return convertBytes(typ, []byte(x))
	case []byte:
		return convertBytes(typ, x)
	}
	return qeval.Text(fmt.Sprint(v))
}

func convertBytes(typ string, b []byte) qeval.Value {
	s := string(b)
	switch strings.TrimPrefix(typ, "UNSIGNED ") {
	case "DECIMAL":
		if v, ok := qeval.ParseDecimal(s); ok {
			return v
		}
	case "BIT":
		if len(b) <= 8 {
			var u uint64
			for _, c := range b {
				u = u<<8 | uint64(c)
			}
			return convert(typ, u)
		}
		return qeval.Bytes(b)
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return qeval.Int(i)
		}
	case "FLOAT", "DOUBLE":
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return qeval.Float(f)
		}
	case "DATE", "DATETIME", "TIMESTAMP":
		for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil && qeval.TimeFits(t) {
				return qeval.Time(t)
			}
		}
	case "BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "GEOMETRY":
		return qeval.Bytes(b)
	}
	return qeval.Text(s)
}
