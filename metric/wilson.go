package metric

import "math"

// SmallN is the count below which a proportion's interval is marked: with fewer than
// five cases even a correct interval is too wide to say much.
const SmallN = 5

// WilsonInterval is the Wilson score interval of a proportion k/n at the given level
// (DefaultLevel when out of (0, 1)). Unlike a percentile bootstrap it does not collapse
// at 0/n or n/n: 0 of 7 right is [0, 35%], not [0, 0]. Resamples is 0 (nothing is
// drawn).
func WilsonInterval(k, n int, level float64) Interval {
	if level <= 0 || level >= 1 {
		level = DefaultLevel
	}
	iv := Interval{Level: level}
	if n <= 0 || k < 0 || k > n {
		return iv
	}
	z := normalQuantile(1 - (1-level)/2)
	p, nn := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nn
	centre := (p + z*z/(2*nn)) / den
	half := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / den
	iv.Lower, iv.Upper = math.Max(0, centre-half), math.Min(1, centre+half)
	if k == 0 {
		iv.Lower = 0
	}
	if k == n {
		iv.Upper = 1
	}
	return iv
}

// normalQuantile is the standard normal distribution's quantile function (Acklam's
// rational approximation, relative error below 1.2e-9).
func normalQuantile(p float64) float64 {
	a := [6]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := [5]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	c := [6]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := [4]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
	const low = 0.02425
	switch {
	case p < low:
		q := math.Sqrt(-2 * math.Log(p))
		return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	case p <= 1-low:
		q := p - 0.5
		r := q * q
		return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
	default:
		q := math.Sqrt(-2 * math.Log(1-p))
		return -(((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	}
}
