package duckdb

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	ddb "github.com/duckdb/duckdb-go/v2"

	"github.com/qeval/qeval"
)

// convert turns one value the driver returned into a qeval.Value: integers of every
// width ints (HUGEINT and unsigned values past the int64 range floats); FLOAT and
// DOUBLE floats; DECIMAL an int when it is integral and fits, else a float (as the other
// engines' executors do); BOOLEAN, VARCHAR, BLOB as such; DATE, TIMESTAMP and
// TIMESTAMPTZ times in UTC (text outside the years a Value holds); TIME, INTERVAL, UUID
// text; LIST, STRUCT, MAP and ARRAY JSON text.
func convert(v any) qeval.Value {
	if qv, ok := qeval.FromGo(v); ok {
		return qv
	}
	switch x := v.(type) {
	case ddb.Decimal:
		if v, ok := qeval.ParseDecimal(x.String()); ok {
			return v
		}
		return qeval.Float(x.Float64())
	case string:
		return qeval.Text(x)
	case []byte:
		return qeval.Bytes(x)
	case time.Time:
		if qeval.TimeFits(x) {
			return qeval.Time(x.UTC())
		}
		return qeval.Text(x.UTC().Format("2006-01-02 15:04:05.999999"))
	case ddb.UUID:
		return qeval.Text(uuidText(x[:]))
	case *ddb.UUID:
		return qeval.Text(uuidText(x[:]))
	case ddb.Interval:
		return qeval.Text(fmt.Sprintf("%d months %d days %d us", x.Months, x.Days, x.Micros))
	}
	if b, err := json.Marshal(jsonable(v)); err == nil {
		return qeval.Text(string(b))
	}
	return qeval.Text(fmt.Sprint(v))
}

func uuidText(b []byte) string {
	h := hex.EncodeToString(b)
	if len(h) != 32 {
		return h
	}
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// jsonable makes a nested value (LIST, STRUCT, MAP) encodable as JSON: map keys become
// text and leaves are converted as top-level values are.
func jsonable(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = jsonable(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case ddb.Map:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case nil:
		return nil
	}
	cv := convert(v)
	switch cv.Kind {
	case qeval.KindInt:
		return cv.Int
	case qeval.KindFloat:
		return cv.Float
	case qeval.KindBool:
		return cv.Int != 0
	}
	return cv.String()
}
