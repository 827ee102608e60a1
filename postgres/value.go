package postgres

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qeval/qeval"
)

// Queries run with text-format results, so every value arrives as PostgreSQL prints
// it (DateStyle ISO, bytea_output hex, TimeZone UTC: see runtimeParams) and one
// function turns it into a qeval.Value.

// convert turns one value of a result, in text format, into a qeval.Value: integers
// become ints; float4/float8 floats; numeric an int when it is integral and fits,
// else a float; booleans bools; bytea bytes; date, timestamp and timestamptz times
// (as UTC; text when outside the years 1678-2261 that a Value can hold, or infinite);
// everything else (json, uuid, interval, arrays, enums, ...) text as the server wrote it.
// m decodes the time types; raw nil is NULL.
func convert(m *pgtype.Map, oid uint32, raw []byte) qeval.Value {
	if raw == nil {
		return qeval.Null
	}
	s := string(raw)
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID, pgtype.XIDOID, pgtype.CIDOID:
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return qeval.Int(i)
		}
	case pgtype.Float4OID, pgtype.Float8OID:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return qeval.Float(f)
		}
	case pgtype.NumericOID:
		if v, ok := decimal(s); ok {
			return v
		}
	case pgtype.BoolOID:
		switch s {
		case "t", "true":
			return qeval.Bool(true)
		case "f", "false":
			return qeval.Bool(false)
		}
	case pgtype.ByteaOID:
		if strings.HasPrefix(s, `\x`) {
			if b, err := hex.DecodeString(s[2:]); err == nil {
				return qeval.Bytes(b)
			}
		}
	case pgtype.DateOID, pgtype.TimestampOID, pgtype.TimestamptzOID:
		var t time.Time
		if err := m.Scan(oid, pgtype.TextFormatCode, raw, &t); err == nil && timeFits(t) {
			return qeval.Time(t.UTC())
		}
	}
	return qeval.Text(s)
}

// decimal parses the text of an exact number: an int when it is integral and fits in
// 64 bits, else a float (NaN and infinities included).
func decimal(s string) (qeval.Value, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return qeval.Int(i), true
	}
	if dot := strings.IndexByte(s, '.'); dot >= 0 && strings.Trim(s[dot+1:], "0") == "" {
		if i, err := strconv.ParseInt(s[:dot], 10, 64); err == nil {
			return qeval.Int(i), true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return qeval.Value{}, false
	}
	return qeval.Float(f), true
}

// A Value holds a time as Unix nanoseconds in an int64.
var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

func timeFits(t time.Time) bool { return !t.Before(minTime) && !t.After(maxTime) }

// typeName returns the name of the type with the given OID, as pg_type.typname spells
// it ("int4", "numeric", "_text"), or "" when m does not know it.
func typeName(m *pgtype.Map, oid uint32) string {
	if t, ok := m.TypeForOID(oid); ok {
		return t.Name
	}
	return ""
}
