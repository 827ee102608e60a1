package postgres

import (
	"encoding/hex"
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
		if v, ok := qeval.ParseDecimal(s); ok {
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
		if err := m.Scan(oid, pgtype.TextFormatCode, raw, &t); err == nil && qeval.TimeFits(t) {
			return qeval.Time(t.UTC())
		}
	}
	return qeval.Text(s)
}

// typeName returns the name of the type with the given OID, as pg_type.typname spells
// it ("int4", "numeric", "_text"), or "" when m does not know it.
func typeName(m *pgtype.Map, oid uint32) string {
	if t, ok := m.TypeForOID(oid); ok {
		return t.Name
	}
	return ""
}
