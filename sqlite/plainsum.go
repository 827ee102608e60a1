package sqlite

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// plainSums are sum, total and avg as SQLite 3.40 computed them (the SQLite of the
// official evaluators): floats added one by one in scan order. SQLite 3.43 and later
// add with a compensated (Kahan-Babuska-Neumaier) sum, so that their result hardly
// depends on the order of the rows, and a gold query whose official result does
// depend on it looks stable; with these, reversing the scan shows it (Options.PlainSums).
var plainSums = []Aggregate{
	{Name: "sum", New: func() *plainSum { return &plainSum{} }, Pure: true},
	{Name: "total", New: func() *plainTotal { return &plainTotal{} }, Pure: true},
	{Name: "avg", New: func() *plainAvg { return &plainAvg{} }, Pure: true},
}

var errIntegerOverflow = errors.New("integer overflow")

// plainSum adds integers exactly while every value is an integer, and every value as a
// float in scan order besides.
type plainSum struct {
	i        int64
	r        float64
	n        int
	approx   bool
	overflow bool
}

func (s *plainSum) Step(v any) {
	if b, ok := v.([]byte); v == nil || ok && b == nil {
		return // NULL (the driver hands it over as a nil []byte)
	}
	s.n++
	switch x := sumValue(v).(type) {
	case int64:
		if !s.approx && !s.overflow {
			if (x > 0 && s.i > math.MaxInt64-x) || (x < 0 && s.i < math.MinInt64-x) {
				s.overflow = true
			} else {
				s.i += x
			}
		}
		s.r += float64(x)
	case float64:
		s.r += x
		s.approx = true
	}
}

func (s *plainSum) Done() (any, error) {
	switch {
	case s.n == 0:
		return nil, nil
	case s.approx:
		return s.r, nil
	case s.overflow:
		return nil, errIntegerOverflow
	}
	return s.i, nil
}

type plainTotal struct{ s plainSum }

func (t *plainTotal) Step(v any)         { t.s.Step(v) }
func (t *plainTotal) Done() (any, error) { return t.s.r, nil }

type plainAvg struct{ s plainSum }

func (a *plainAvg) Step(v any) { a.s.Step(v) }
func (a *plainAvg) Done() (any, error) {
	if a.s.n == 0 {
		return nil, nil
	}
	return a.s.r / float64(a.s.n), nil
}

// sumValue is a value as SQLite's sum reads it: integers and floats as they are, text
// that reads as a number as that number, anything else 0.0.
func sumValue(v any) any {
	switch x := v.(type) {
	case int64, float64:
		return x
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case []byte:
		return sumValue(string(x))
	case string:
		s := strings.TrimSpace(x)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return 0.0
	}
	return 0.0
}
