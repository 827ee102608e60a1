package kqlexec

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/qeval/qeval/internal/lazyregexp"
)

// Datetimes and timespans are counts of 100 ns ticks: a datetime since the Unix epoch
// (UTC), a timespan as a duration. That is Kusto's own precision.
const (
	tick        = 1
	tickMicro   = 10
	tickMilli   = 10_000
	tickSecond  = 10_000_000
	tickMinute  = 60 * tickSecond
	tickHour    = 60 * tickMinute
	tickDay     = 24 * tickHour
	unixToYear1 = 62135596800 * tickSecond // ticks from 0001-01-01 to 1970-01-01
)

// Datetime is a KQL datetime at run time: ticks since the Unix epoch, UTC.
type Datetime int64

// Timespan is a KQL timespan at run time: ticks.
type Timespan int64

// Guid is a KQL guid at run time, in its canonical lower-case text form.
type Guid string

func datetimeOf(t time.Time) Datetime {
	t = t.UTC()
	return Datetime(t.Unix()*tickSecond + int64(t.Nanosecond())/100)
}

// Time returns d as a time.Time in UTC.
func (d Datetime) Time() time.Time {
	s := int64(d) / tickSecond
	r := int64(d) % tickSecond
	if r < 0 {
		s--
		r += tickSecond
	}
	return time.Unix(s, r*100).UTC()
}

// String formats d as Kusto prints a datetime: ISO 8601 in UTC with seven fractional
// digits (2017-01-01T00:00:00.0000000Z).
func (d Datetime) String() string {
	t := d.Time()
	frac := (int64(d)%tickSecond + tickSecond) % tickSecond
	return t.Format("2006-01-02T15:04:05") + "." + pad7(frac) + "Z"
}

func pad7(n int64) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", 7-len(s)) + s
}

// String formats t as Kusto prints a timespan: [-][d.]hh:mm:ss[.fffffff].
func (t Timespan) String() string {
	v := int64(t)
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
		if v == math.MinInt64 {
			v = math.MaxInt64
		} else {
			v = -v
		}
	}
	days := v / tickDay
	v %= tickDay
	if days > 0 {
		b.WriteString(strconv.FormatInt(days, 10))
		b.WriteByte('.')
	}
	h, m, s, f := v/tickHour, v%tickHour/tickMinute, v%tickMinute/tickSecond, v%tickSecond
	b.WriteString(two(h))
	b.WriteByte(':')
	b.WriteString(two(m))
	b.WriteByte(':')
	b.WriteString(two(s))
	if f > 0 {
		b.WriteByte('.')
		b.WriteString(pad7(f))
	}
	return b.String()
}

func two(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

var datetimeLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04",
	"2006-01-02T15",
	"2006-01-02",
	"2006-01",
	"2006",
	"2006/01/02 15:04:05.999999999",
	"2006/01/02 15:04",
	"2006/01/02",
	// one-digit months and days, as .NET reads them
	"2006-1-2T15:04:05.999999999Z07:00",
	"2006-1-2 15:04:05.999999999",
	"2006-1-2 15:04",
	"2006-1-2",
	"01/02/2006 15:04:05.999999999",
	"01/02/2006 15:04",
	"01/02/2006",
	"1/2/2006 15:04:05",
	"1/2/2006 3:04:05 PM",
	"1/2/2006",
	"01-02-2006",
	"01-02-2006 3:04PM",
	"01-02-2006 3:04 PM",
	"01-02-2006 15:04",
	"01/02/2006 3:04 PM",
	"20060102",
	"20060102T150405",
	time.RFC1123,
	time.RFC1123Z,
	time.RFC822,
	time.RFC822Z,
	time.RFC850,
	time.ANSIC,
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05",
	"2 Jan 2006",
	"Jan 2 2006",
	"January 2, 2006",
}

// parseDatetime reads a datetime as Kusto's todatetime and datetime(...) accept it.
// spacedDate finds the dashes of a date written with spaces around them.
var spacedDate = lazyregexp.New(`(\d)(?:\s+-\s*|\s*-\s+)(\d)`)

func parseDatetime(s string) (Datetime, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if strings.Count(s, ",") >= 2 && !strings.ContainsAny(s, "-/:") {
		return parseDatetimeParts(s)
	}
	if len(s) >= 20 && s[10] == 'T' {
		// the form datetimes are stored and printed in (2017-01-01T00:00:00.0000000Z)
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return datetimeOf(t), true
		}
	}
	if (strings.Contains(s, " -") || strings.Contains(s, "- ")) && spacedDate.MatchString(s) {
		// datetime(2017 - 08 - 01): Kusto reads the date with spaces around its dashes
		s = spacedDate.ReplaceAllString(s, "${1}-${2}")
	}
	up := strings.TrimSuffix(strings.TrimSuffix(s, "Z"), "z")
	for _, l := range datetimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return datetimeOf(t), true
		}
		if up != s {
			if t, err := time.Parse(l, up); err == nil {
				return datetimeOf(t), true
			}
		}
	}
	return 0, false
}

// parseDatetimeParts reads datetime(2025, 6, 14[, h, m, s]).
func parseDatetimeParts(s string) (Datetime, bool) {
	parts := strings.Split(s, ",")
	var n [7]int
	if len(parts) > 7 {
		return 0, false
	}
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return 0, false
		}
		n[i] = v
	}
	if n[1] == 0 {
		n[1] = 1
	}
	if n[2] == 0 {
		n[2] = 1
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, time.UTC)
	return datetimeOf(t), true
}

var spanUnits = map[string]int64{
	"d": tickDay, "day": tickDay, "days": tickDay,
	"h": tickHour, "hr": tickHour, "hrs": tickHour, "hour": tickHour, "hours": tickHour,
	"m": tickMinute, "min": tickMinute, "minute": tickMinute, "minutes": tickMinute,
	"s": tickSecond, "sec": tickSecond, "second": tickSecond, "seconds": tickSecond,
	"ms": tickMilli, "milli": tickMilli, "millis": tickMilli, "millisecond": tickMilli, "milliseconds": tickMilli,
	"microsecond": tickMicro, "microseconds": tickMicro, "tick": tick, "ticks": tick,
	"nanosecond": 0, "nanoseconds": 0,
}

// parseTimespan reads a time span: 1h, 1.5d, 30 seconds, [-][d.]hh:mm[:ss[.fffffff]],
// or a bare number of days.
func parseTimespan(s string) (Timespan, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = strings.TrimSpace(s[1:])
	}
	var t int64
	if strings.Contains(s, ":") {
		v, ok := clockTicks(s)
		if !ok {
			return 0, false
		}
		t = v
	} else {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
		if unit == "" {
			unit = "d"
		}
		per, ok := spanUnits[unit]
		if !ok || num == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, false
		}
		if per == 0 {
			t = int64(math.Round(f / 100))
		} else {
			t = int64(math.Round(f * float64(per)))
		}
	}
	if neg {
		t = -t
	}
	return Timespan(t), true
}

// clockTicks reads [d.]hh:mm[:ss[.fffffff]].
func clockTicks(v string) (int64, bool) {
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	var days int64
	hours := parts[0]
	if d, h, ok := strings.Cut(parts[0], "."); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return 0, false
		}
		days, hours = n, h
	}
	h, err1 := strconv.ParseInt(hours, 10, 64)
	m, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || h < 0 || m < 0 {
		return 0, false
	}
	t := days*tickDay + h*tickHour + m*tickMinute
	if len(parts) == 3 {
		sec, frac, _ := strings.Cut(parts[2], ".")
		sv, err := strconv.ParseInt(sec, 10, 64)
		if err != nil {
			return 0, false
		}
		t += sv * tickSecond
		if frac != "" {
			if len(frac) > 7 {
				frac = frac[:7]
			}
			fv, err := strconv.ParseInt(frac+strings.Repeat("0", 7-len(frac)), 10, 64)
			if err != nil {
				return 0, false
			}
			t += fv
		}
	}
	return t, true
}

// floorDiv is integer division rounding toward negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
