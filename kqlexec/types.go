package kqlexec

import "strings"

// Type is a KQL scalar type name, as Column.Type reports it.
type Type string

// The KQL scalar types.
const (
	TString   Type = "string"
	TLong     Type = "long"
	TInt      Type = "int"
	TReal     Type = "real"
	TBool     Type = "bool"
	TDatetime Type = "datetime"
	TTimespan Type = "timespan"
	TDynamic  Type = "dynamic"
	TGuid     Type = "guid"
	TDecimal  Type = "decimal"
)

// typeNames maps every spelling KQL accepts for a scalar type to the type.
var typeNames = map[string]Type{
	"string": TString, "long": TLong, "int64": TLong, "int": TInt, "int32": TInt,
	"real": TReal, "double": TReal, "float": TReal, "bool": TBool, "boolean": TBool,
	"datetime": TDatetime, "date": TDatetime, "timespan": TTimespan, "time": TTimespan,
	"dynamic": TDynamic, "object": TDynamic, "guid": TGuid, "uniqueid": TGuid, "decimal": TDecimal,
	// .NET names, as Kusto schemas and the v2 REST protocol write them
	"system.string": TString, "system.int64": TLong, "system.int32": TInt, "system.double": TReal,
	"system.single": TReal, "system.boolean": TBool, "system.sbyte": TBool, "sbyte": TBool,
	"system.datetime": TDatetime, "system.timespan": TTimespan, "system.object": TDynamic,
	"system.guid": TGuid, "system.data.sqltypes.sqldecimal": TDecimal, "sqldecimal": TDecimal,
	"system.decimal": TDecimal,
}

// ParseType returns the type a name denotes (case-insensitive; KQL and .NET spellings).
func ParseType(name string) (Type, bool) {
	t, ok := typeNames[strings.ToLower(strings.TrimSpace(name))]
	return t, ok
}

// DotNetName returns the .NET type name Kusto reports for t (String, Int64, ...).
func DotNetName(t Type) string {
	switch t {
	case TString:
		return "String"
	case TLong:
		return "Int64"
	case TInt:
		return "Int32"
	case TReal:
		return "Double"
	case TBool:
		return "SByte"
	case TDatetime:
		return "DateTime"
	case TTimespan:
		return "TimeSpan"
	case TDynamic:
		return "Object"
	case TGuid:
		return "Guid"
	case TDecimal:
		return "SqlDecimal"
	}
	return string(t)
}

func (t Type) integer() bool { return t == TLong || t == TInt }
func (t Type) numeric() bool { return t == TLong || t == TInt || t == TReal || t == TDecimal }

// ticky types are stored as a count of 100 ns ticks.
func (t Type) ticky() bool { return t == TDatetime || t == TTimespan }

// promote returns the result type of arithmetic on two numeric types.
func promote(a, b Type) Type {
	switch {
	case a == TDecimal || b == TDecimal:
		return TDecimal
	case a == TReal || b == TReal:
		return TReal
	case a == TLong || b == TLong:
		return TLong
	case a == TInt && b == TInt:
		return TInt
	}
	return TLong
}
