package kqlexec

import "math"

// Distribution functions: beta_cdf, beta_inv and welch_test, from the regularized
// incomplete beta function.

// incBeta is the regularized incomplete beta function I_x(a, b), by its continued
// fraction (modified Lentz), on the side where it converges fast.
func incBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaFraction(1-x, b, a)/b
	}
	return front * betaFraction(x, a, b) / a
}

func betaFraction(x, a, b float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	nonzero := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/nonzero(1-(a+b)*x/(a+1))
	f := d
	// step applies one term of the fraction and returns its factor
	step := func(num float64) float64 {
		d = 1 / nonzero(1+num*d)
		c = nonzero(1 + num/c)
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		f *= step(fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)))
		delta := step(-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1)))
		f *= delta
		if math.Abs(delta-1) < eps {
			break
		}
	}
	return f
}

// statsFuncs defines this file's functions (see library in funcs.go).
func statsFuncs(def func(string, *fnDef)) {
	// beta_cdf (its page): null for a null argument; NaN for x outside [0, 1] or a
	// parameter outside (0, 10000]
	def("beta_cdf", fixed(TReal, func(a []any) any {
		x, ok1 := toReal(a[0])
		al, ok2 := toReal(a[1])
		be, ok3 := toReal(a[2])
		if !ok1 || !ok2 || !ok3 {
			return nil
		}
		if x < 0 || x > 1 || al <= 0 || be <= 0 || al > 10000 || be > 10000 {
			return math.NaN()
		}
		return incBeta(x, al, be)
	}, TReal, TReal, TReal))
	// beta_inv (its page's example, where the engine's answers and the notes differ):
	// null for a null argument or a probability outside (0, 1]; NaN for a parameter
	// that is not positive
	def("beta_inv", fixed(TReal, func(a []any) any {
		p, ok1 := toReal(a[0])
		al, ok2 := toReal(a[1])
		be, ok3 := toReal(a[2])
		if !ok1 || !ok2 || !ok3 || p <= 0 || p > 1 {
			return nil
		}
		if al <= 0 || be <= 0 {
			return math.NaN()
		}
		if p == 1 {
			return 1.0
		}
		lo, hi := 0.0, 1.0
		for range 200 {
			mid := (lo + hi) / 2
			if incBeta(mid, al, be) < p {
				lo = mid
			} else {
				hi = mid
			}
		}
		return (lo + hi) / 2
	}, TReal, TReal, TReal))
	// welch_test(mean1, variance1, count1, mean2, variance2, count2) is the two-sided
	// p-value of Welch's t-test.
	def("welch_test", fixed(TReal, func(a []any) any {
		var v [6]float64
		for i := range v {
			f, ok := toReal(a[i])
			if !ok {
				return nil
			}
			v[i] = f
		}
		m1, s1, n1, m2, s2, n2 := v[0], v[1], v[2], v[3], v[4], v[5]
		if n1 < 2 || n2 < 2 || s1 < 0 || s2 < 0 {
			return nil
		}
		e1, e2 := s1/n1, s2/n2
		if e1+e2 == 0 {
			return nil
		}
		t := (m1 - m2) / math.Sqrt(e1+e2)
		df := (e1 + e2) * (e1 + e2) / (e1*e1/(n1-1) + e2*e2/(n2-1))
		return incBeta(df/(df+t*t), df/2, 0.5)
	}, TReal, TReal, TReal, TReal, TReal, TReal))
}
