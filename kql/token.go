package kql

// Pos is a byte offset into the source text of a Script. Script.Position turns it into
// a 1-based line and column.
type Pos int

// tokKind classifies a token. Punctuation and operators share tPunct and are told apart
// by their text, which is short and cheap to compare.
type tokKind uint8

const (
	tEOF       tokKind = iota
	tIdent             // name, keyword or $left/$right
	tString            // any string literal form; val holds the decoded value
	tLong              // integer literal (decimal or 0x hex)
	tReal              // real literal (fraction or exponent)
	tTimespan          // number with a time unit: 1h, 1.5d, 10ms
	tTyped             // typed literal with raw contents: datetime(...), guid(...), int(...)...
	tWordOp            // negated or tilde word operator: !has, !contains_cs, in~, !in~
	tPunct             // punctuation and symbolic operators
	tDirective         // a client directive line: #connect ..., #ke ...
	tBad               // a character or literal the lexer could not read
)

// token is one lexical token. text is the source slice. For strings val is the decoded
// value; for typed literals val is the type name and aux the text between the parens.
type token struct {
	kind tokKind
	pos  Pos
	end  Pos
	text string
	val  string
	aux  string
}

// timespanUnits maps each time-unit suffix the lexer accepts to its length in ticks
// (100 ns), the unit Kusto counts time spans in.
var timespanUnits = map[string]int64{
	"d": 864000000000, "day": 864000000000, "days": 864000000000,
	"h": 36000000000, "hr": 36000000000, "hrs": 36000000000, "hour": 36000000000, "hours": 36000000000,
	"m": 600000000, "min": 600000000, "minute": 600000000, "minutes": 600000000,
	"s": 10000000, "sec": 10000000, "second": 10000000, "seconds": 10000000,
	"ms": 10000, "milli": 10000, "millis": 10000, "millisec": 10000, "millisecond": 10000, "milliseconds": 10000,
	"microsec": 10, "microsecond": 10, "microseconds": 10, "micro": 10, "micros": 10,
	"tick": 1, "ticks": 1,
	"nano": 0, "nanos": 0, "nanosec": 0, "nanosecond": 0, "nanoseconds": 0, // 1/100 tick: see timespan.go
}

// typedLiteralNames are the type names that, directly followed by "(", open a literal
// whose contents are read raw (datetime(2017-01-01 10:00), guid(74be...), int(null)).
var typedLiteralNames = map[string]bool{
	"datetime": true, "date": true, "timespan": true, "time": true, "guid": true,
	"int": true, "long": true, "real": true, "double": true, "decimal": true,
	"bool": true, "boolean": true,
}
