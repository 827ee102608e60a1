package kqlexec_test

import "testing"

// The period functions as queries: their columns, their arrays, and series_decompose's
// family using the period they detect (seasonality -1, the default) as if it had been
// given.

// traffic is the reference's 60-point series (twice-daily bins), whose period is 14.
const traffic = `print y=dynamic([80, 139, 87, 110, 68, 54, 50, 51, 53, 133, 86, 141, 97, 156, 94, 149, 95, 140, 77, 61, 50, 54, 47, 133, 72, 152, 94, 148, 105, 162, 101, 160, 87, 63, 53, 55, 54, 151, 103, 189, 108, 183, 113, 175, 113, 178, 90, 71, 62, 62, 65, 165, 109, 181, 115, 182, 121, 178, 114, 170])`

// weekly is five weeks of hourly bins, weekdays above weekends and lower in the
// afternoon, with a deterministic jitter, as one series y.
const weekly = `let w = range t from 1 to 24*7*5 step 1
| extend y = iff((t/24)%7 >= 5, 10.0, 15.0) - ((t%24)/10)*((t%24)/10) + (t*7919 % 13)/13.0
| summarize y = make_list(y, 100000);
`

func TestPeriods_Queries(t *testing.T) {
	e := mustOpen(t, "")
	checkQueries(t, e, []queryCase{
		// periods padded to num_periods with 0, the best first
		{"detect", traffic + ` | project (p, s) = series_periods_detect(y, 0.0, 50.0, 2)
| project p = tostring(p), s0 = todouble(s[0]) > 0.8 and todouble(s[0]) <= 1, s1 = todouble(s[1])`, "p,s0,s1", []string{"[14.0,0.0]|true|0"}},
		{"detect columns", traffic + ` | extend series_periods_detect(y, 4.0, 20.0, 1) | project-away y | take 0`,
			"series_periods_detect_y_periods,series_periods_detect_y_scores", nil},
		{"detect none", `print y = dynamic([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]) | project (p, s) = series_periods_detect(y, 0.0, 5.0, 3) | project p = tostring(p), s = tostring(s)`,
			"p,s", []string{"[0.0,0.0,0.0]|[0.0,0.0,0.0]"}},
		// the periods as given; 0 for a lag off the peak, under 4, past half the series, null
		{"validate", traffic + ` | project (p, s) = series_periods_validate(y, 14.0, 10.0, 2, 31, real(null))
| project p = tostring(p), s0 = todouble(s[0]) > 0.8, rest = tostring(array_slice(s, 1, 4))`, "p,s0,rest", []string{"[14.0,10.0,2.0,31.0,null]|true|[0.0,0.0,0.0,0.0]"}},
		{"validate columns", traffic + ` | extend series_periods_validate(y, 14.0) | project-away y | take 0`,
			"series_periods_validate_y_periods,series_periods_validate_y_scores", nil},
		// the reference's series_seasonal examples: periods 6 and 5 detected, the third
		// series too short; a negative period other than -1 gives zeros
		{"series_seasonal detected", `print s=dynamic([2, 5, 3, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1]), p = 6
| union (print s=dynamic([8, 12, 14, 12, 10, 10, 12, 14, 12, 10, 10, 12, 14, 12, 10, 10, 12, 14, 12, 10]), p = 5)
| union (print s=dynamic([1, 3, 5, 2, 4, 6, 1, 3, 5, 2, 4, 6]), p = 0)
| project p, same = tostring(series_seasonal(s)) == tostring(series_seasonal(s, p)), zeros = tostring(series_seasonal(s, -2)) == tostring(series_seasonal(s, 0))
| sort by p asc`, "p,same,zeros", []string{"0|true|true", "5|true|true", "6|true|true"}},
		{"series_decompose detected", weekly + `w | project (b1, s1, t1, r1) = series_decompose(y), (b2, s2, t2, r2) = series_decompose(y, 168),
	(b3, s3, t3, r3) = series_decompose(y, -1, 'avg', 0, 1.5), (b4, s4, t4, r4) = series_decompose(y, 0)
| project weekly = tostring(s1) == tostring(s2) and tostring(r1) == tostring(r2), periodic = todouble(s1[0]) == todouble(s1[168]) and todouble(s1[0]) != todouble(s1[1]),
	unreached = tostring(b3) == tostring(b4)`, "weekly,periodic,unreached", []string{"true|true|true"}},
		// the forecast learns (and detects) on the points before the ones it forecasts,
		// here a sixth week of zeros as make-series leaves it
		{"series_decompose_forecast detected", weekly + `w | extend y = array_concat(y, repeat(0.0, 168))
| project same = tostring(series_decompose_forecast(y, 168)) == tostring(series_decompose_forecast(y, 168, 168))`, "same", []string{"true"}},
		{"series_decompose_anomalies detected", weekly + `w | project (f1, s1, b1) = series_decompose_anomalies(y), (f2, s2, b2) = series_decompose_anomalies(y, 1.5, 168)
| project same = tostring(s1) == tostring(s2) and tostring(b1) == tostring(b2)`, "same", []string{"true"}},
	})
}
