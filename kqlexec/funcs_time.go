package kqlexec

//go:generate go run ./internal/gentz

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // datetime_utc_to_local needs the zone database on every machine
)

func dtArg(a []any, i int) (time.Time, bool) {
	if i >= len(a) {
		return time.Time{}, false
	}
	d, ok := toDatetime(a[i])
	if !ok || a[i] == nil {
		return time.Time{}, false
	}
	return d.Time(), true
}

// startOf returns the start of the period holding t, offset periods later.
func startOf(unit string, t time.Time, off int) time.Time {
	switch unit {
	case "day":
		return time.Date(t.Year(), t.Month(), t.Day()+off, 0, 0, 0, 0, time.UTC)
	case "week":
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -int(d.Weekday())+7*off)
	case "weekmonday":
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		wd := (int(d.Weekday()) + 6) % 7
		return d.AddDate(0, 0, -wd+7*off)
	case "month":
		return time.Date(t.Year(), t.Month()+time.Month(off), 1, 0, 0, 0, 0, time.UTC)
	case "year":
		return time.Date(t.Year()+off, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return t
}

func periodFn(unit string, end bool) *fnDef {
	return &fnDef{min: 1, max: 2, args: []Type{TDatetime, TLong}, ret: TDatetime, fn: func(a []any) any {
		t, ok := dtArg(a, 0)
		if !ok {
			return nil
		}
		off := int(long(a, 1, 0))
		if end {
			return datetimeOf(startOf(unit, t, off+1)) - 1
		}
		return datetimeOf(startOf(unit, t, off))
	}}
}

// addMonths adds months as .NET does: the day is clamped to the month's last day.
func addMonths(t time.Time, n int) time.Time {
	y, m := t.Year(), int(t.Month())-1+n
	y += m / 12
	m %= 12
	if m < 0 {
		m += 12
		y--
	}
	last := time.Date(y, time.Month(m+2), 0, 0, 0, 0, 0, time.UTC).Day()
	d := t.Day()
	if d > last {
		d = last
	}
	return time.Date(y, time.Month(m+1), d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

var partTicks = map[string]int64{
	"week": 7 * tickDay, "day": tickDay, "hour": tickHour, "minute": tickMinute, "second": tickSecond,
	"millisecond": tickMilli, "microsecond": tickMicro, "nanosecond": 0,
}

func normPart(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	switch p {
	case "years", "yy", "yyyy":
		return "year"
	case "quarters", "qq", "q":
		return "quarter"
	case "months", "mm", "m":
		return "month"
	case "weeks", "wk", "ww", "week_of_year", "weekofyear":
		return "week"
	case "days", "dd", "d":
		return "day"
	case "hours", "hh":
		return "hour"
	case "minutes", "mi", "n":
		return "minute"
	case "seconds", "ss", "s":
		return "second"
	case "milliseconds", "ms":
		return "millisecond"
	case "microseconds", "mcs":
		return "microsecond"
	case "nanoseconds", "ns":
		return "nanosecond"
	}
	return p
}

// timeFuncs defines this file's functions (see library in funcs.go).
func timeFuncs(def func(string, *fnDef)) {
	def("startofday", periodFn("day", false))
	def("startofweek", periodFn("week", false))
	def("startofweekfrommonday", periodFn("weekmonday", false))
	def("startofmonth", periodFn("month", false))
	def("startofyear", periodFn("year", false))
	def("endofday", periodFn("day", true))
	def("endofweek", periodFn("week", true))
	def("endofmonth", periodFn("month", true))
	def("endofyear", periodFn("year", true))
	def("dayofweek", fixed(TTimespan, func(a []any) any {
		t, ok := dtArg(a, 0)
		if !ok {
			return nil
		}
		return Timespan(int64(t.Weekday()) * tickDay)
	}, TDatetime))
	intPart := func(f func(t time.Time) int) *fnDef {
		return fixed(TLong, func(a []any) any {
			t, ok := dtArg(a, 0)
			if !ok {
				return nil
			}
			return int64(f(t))
		}, TDatetime)
	}
	def("dayofmonth", intPart(func(t time.Time) int { return t.Day() }))
	def("dayofyear", intPart(func(t time.Time) int { return t.YearDay() }))
	def("monthofyear", intPart(func(t time.Time) int { return int(t.Month()) }))
	def("getyear", intPart(func(t time.Time) int { return t.Year() }))
	def("hourofday", intPart(func(t time.Time) int { return t.Hour() }))
	def("weekofyear", intPart(func(t time.Time) int { _, w := t.ISOWeek(); return w }))
	funcAliases["week_of_year"] = "weekofyear"
	def("datetime_part", fixed(TLong, func(a []any) any {
		t, ok := dtArg(a, 1)
		if !ok {
			return nil
		}
		d, _ := toDatetime(a[1])
		frac := (int64(d)%tickSecond + tickSecond) % tickSecond
		switch normPart(str(a, 0)) {
		case "year":
			return int64(t.Year())
		case "quarter":
			return int64((int(t.Month())-1)/3 + 1)
		case "month":
			return int64(t.Month())
		case "week":
			_, w := t.ISOWeek()
			return int64(w)
		case "day":
			return int64(t.Day())
		case "dayofyear":
			return int64(t.YearDay())
		case "hour":
			return int64(t.Hour())
		case "minute":
			return int64(t.Minute())
		case "second":
			return int64(t.Second())
		case "millisecond":
			return frac / tickMilli
		case "microsecond":
			return frac / tickMicro
		case "nanosecond":
			return frac * 100
		}
		return nil
	}, TString, TDatetime))
	def("datetime_add", fixed(TDatetime, func(a []any) any {
		t, ok := dtArg(a, 2)
		n, ok2 := toLong(a[1])
		if !ok || !ok2 {
			return nil
		}
		switch p := normPart(str(a, 0)); p {
		case "year":
			return datetimeOf(addMonths(t, int(n)*12))
		case "quarter":
			return datetimeOf(addMonths(t, int(n)*3))
		case "month":
			return datetimeOf(addMonths(t, int(n)))
		case "nanosecond":
			return toDT(a[2]) + Datetime(n/100)
		default:
			per, ok := partTicks[p]
			if !ok {
				return nil
			}
			return toDT(a[2]) + Datetime(n*per)
		}
	}, TString, TLong, TDatetime))
	def("datetime_diff", fixed(TLong, func(a []any) any {
		t1, ok1 := dtArg(a, 1)
		t2, ok2 := dtArg(a, 2)
		if !ok1 || !ok2 {
			return nil
		}
		d1, d2 := int64(toDT(a[1])), int64(toDT(a[2]))
		switch p := normPart(str(a, 0)); p {
		case "year":
			return int64(t1.Year() - t2.Year())
		case "quarter":
			return int64((t1.Year()*12+int(t1.Month())-1)/3 - (t2.Year()*12+int(t2.Month())-1)/3)
		case "month":
			return int64((t1.Year()-t2.Year())*12 + int(t1.Month()) - int(t2.Month()))
		case "week":
			return (int64(datetimeOf(startOf("week", t1, 0))) - int64(datetimeOf(startOf("week", t2, 0)))) / (7 * tickDay)
		case "nanosecond":
			return (d1 - d2) * 100
		default:
			per, ok := partTicks[p]
			if !ok || per == 0 {
				return nil
			}
			return floorDiv(d1, per) - floorDiv(d2, per)
		}
	}, TString, TDatetime, TDatetime))
	def("make_datetime", &fnDef{min: 3, max: 7, args: []Type{TLong, TLong, TLong, TLong, TLong, TReal}, ret: TDatetime, fn: func(a []any) any {
		for _, x := range a {
			if x == nil {
				return nil
			}
		}
		sec, _ := toReal(get(a, 5, 0.0))
		mo, d := long(a, 1, 1), long(a, 2, 1)
		if mo < 1 || mo > 12 || d < 1 || d > 31 {
			return nil
		}
		t := time.Date(int(long(a, 0, 1)), time.Month(mo), int(d), int(long(a, 3, 0)), int(long(a, 4, 0)), 0, 0, time.UTC)
		if t.Day() != int(d) {
			return nil
		}
		return datetimeOf(t) + Datetime(math.Round(sec*tickSecond))
	}})
	def("make_timespan", &fnDef{min: 2, max: 4, args: []Type{TLong, TLong, TLong, TReal}, ret: TTimespan, fn: func(a []any) any {
		var d, h, m int64
		var s float64
		if len(a) == 4 {
			d, h, m = long(a, 0, 0), long(a, 1, 0), long(a, 2, 0)
			s, _ = toReal(a[3])
		} else {
			h, m = long(a, 0, 0), long(a, 1, 0)
			if len(a) == 3 {
				s, _ = toReal(a[2])
			}
		}
		return Timespan(d*tickDay + h*tickHour + m*tickMinute + int64(math.Round(s*tickSecond)))
	}})
	unix := func(per float64) *fnDef {
		return fixed(TDatetime, func(a []any) any {
			f, ok := toReal(a[0])
			if !ok || a[0] == nil {
				return nil
			}
			return Datetime(math.Round(f * per))
		}, TReal)
	}
	def("unixtime_seconds_todatetime", unix(tickSecond))
	def("unixtime_milliseconds_todatetime", unix(tickMilli))
	def("unixtime_microseconds_todatetime", unix(tickMicro))
	def("unixtime_nanoseconds_todatetime", unix(0.01))
	def("format_datetime", fixed(TString, func(a []any) any {
		d, ok := toDatetime(a[0])
		if !ok || a[0] == nil {
			return ""
		}
		return formatDatetime(d, str(a, 1))
	}, TDatetime, TString))
	def("format_timespan", fixed(TString, func(a []any) any {
		s, ok := toTimespan(a[0])
		if !ok || a[0] == nil {
			return ""
		}
		return formatTimespan(s, str(a, 1))
	}, TTimespan, TString))
	zone := func(toLocal bool) *fnDef {
		return fixed(TDatetime, func(a []any) any {
			t, ok := dtArg(a, 0)
			if !ok {
				return nil
			}
			loc := zoneNamed(str(a, 1))
			if loc == nil {
				return nil
			}
			frac := Datetime((int64(toDT(a[0]))%tickSecond + tickSecond) % tickSecond)
			t = t.Truncate(time.Second)
			if toLocal {
				l := t.In(loc)
				return datetimeOf(time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), 0, time.UTC)) + frac
			}
			return datetimeOf(localToUTC(t, loc)) + frac
		}, TDatetime, TString)
	}
	def("datetime_utc_to_local", zone(true))
	def("datetime_local_to_utc", zone(false))
	// datetime_list_timezones(): the IANA names (timezones.go, generated from the Go
	// toolchain's time zone database)
	def("datetime_list_timezones", &fnDef{min: 0, max: 0, ret: TDynamic, fn: func([]any) any {
		out := make([]any, len(timeZones))
		for i, z := range timeZones {
			out[i] = z
		}
		return Dyn{out}
	}})
}

// zones caches the locations zoneNamed loaded.
var zones sync.Map

// zoneNamed returns the time zone of a name datetime_list_timezones lists (the
// timezone page's list, names as written there), else nil: "Local" and "" are not
// zones of the list, though Go's LoadLocation takes them.
func zoneNamed(name string) *time.Location {
	if z, ok := zones.Load(name); ok {
		return z.(*time.Location)
	}
	if _, found := slices.BinarySearch(timeZones, name); !found {
		return nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	zones.Store(name, loc)
	return loc
}

// localToUTC reads the wall clock of naive (its fields, whatever its zone) in loc.
// Where the zone's clock moves, the offset in effect after the move is used: a wall
// time the clock skipped (spring forward) is read with the later offset (Brussels
// 02:00 on 2022-03-27 is 00:00 UTC, the datetime_local_to_utc page's example), and a
// wall time it shows twice (fall back) is read as standard time, the later of the
// two instants (US/Pacific 01:30 on 2022-11-06 is 09:30 UTC), as .NET's conversion
// does. Go's time.Date leaves that choice open.
func localToUTC(naive time.Time, loc *time.Location) time.Time {
	wall := time.Date(naive.Year(), naive.Month(), naive.Day(), naive.Hour(), naive.Minute(), naive.Second(), naive.Nanosecond(), time.UTC)
	// the offsets in effect around the wall time (a zone moves its clock at most
	// once in 36 hours)
	var offs []int
	for _, d := range []time.Duration{-36 * time.Hour, 0, 36 * time.Hour} {
		_, off := wall.Add(d).In(loc).Zone()
		if !slices.Contains(offs, off) {
			offs = append(offs, off)
		}
	}
	var best time.Time
	found := false
	for _, off := range offs {
		u := wall.Add(-time.Duration(off) * time.Second)
		if _, o := u.In(loc).Zone(); o == off && (!found || u.After(best)) {
			best, found = u, true
		}
	}
	if found {
		return best
	}
	// skipped: the latest candidate instant is past the move; read with its offset
	latest := wall.Add(-time.Duration(slices.Min(offs)) * time.Second)
	_, after := latest.In(loc).Zone()
	return wall.Add(-time.Duration(after) * time.Second)
}

func toDT(v any) Datetime { d, _ := toDatetime(v); return d }

func get(a []any, i int, def any) any {
	if i < len(a) {
		return a[i]
	}
	return def
}

// formatDatetime formats with .NET-style specifiers (yyyy, MM, dd, HH, hh, mm, ss,
// f..fffffff, F..FFFFFFF, tt); other characters are copied.
func formatDatetime(d Datetime, f string) string {
	t := d.Time()
	frac := (int64(d)%tickSecond + tickSecond) % tickSecond
	var b strings.Builder
	for i := 0; i < len(f); {
		c := f[i]
		n := 1
		for i+n < len(f) && f[i+n] == c {
			n++
		}
		switch c {
		case 'y':
			y := t.Year()
			if n <= 2 {
				b.WriteString(pad(int64(y%100), n))
			} else {
				b.WriteString(pad(int64(y), n))
			}
		case 'M':
			b.WriteString(pad(int64(t.Month()), n))
		case 'd':
			b.WriteString(pad(int64(t.Day()), n))
		case 'H':
			b.WriteString(pad(int64(t.Hour()), n))
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad(int64(h), n))
		case 'm':
			b.WriteString(pad(int64(t.Minute()), n))
		case 's':
			b.WriteString(pad(int64(t.Second()), n))
		case 'f', 'F':
			s := pad7(frac)[:min(n, 7)]
			if c == 'F' {
				s = strings.TrimRight(s, "0")
			}
			b.WriteString(s)
		case 't':
			ap := "AM"
			if t.Hour() >= 12 {
				ap = "PM"
			}
			b.WriteString(ap[:min(n, 2)])
		default:
			b.WriteString(f[i : i+n])
		}
		i += n
	}
	return b.String()
}

func formatTimespan(s Timespan, f string) string {
	v := int64(s)
	neg := v < 0
	if neg {
		v = -v
	}
	days, hours := v/tickDay, v%tickDay/tickHour
	mins, secs, frac := v%tickHour/tickMinute, v%tickMinute/tickSecond, v%tickSecond
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := 0; i < len(f); {
		c := f[i]
		n := 1
		for i+n < len(f) && f[i+n] == c {
			n++
		}
		switch c {
		case 'd':
			b.WriteString(pad(days, n))
		case 'h', 'H':
			b.WriteString(pad(hours, n))
		case 'm':
			b.WriteString(pad(mins, n))
		case 's':
			b.WriteString(pad(secs, n))
		case 'f', 'F':
			x := pad7(frac)[:min(n, 7)]
			if c == 'F' {
				x = strings.TrimRight(x, "0")
			}
			b.WriteString(x)
		default:
			b.WriteString(f[i : i+n])
		}
		i += n
	}
	return b.String()
}

func pad(v int64, n int) string {
	s := itoa64(v)
	for len(s) < n {
		s = "0" + s
	}
	return s
}

func itoa64(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var buf [20]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
