package metric

// CohenKappa returns the observed agreement and Cohen's κ of two raters on a 2×2
// table: a both positive, b first positive only, c second positive only, d both
// negative. κ is nil when it is undefined: the chance agreement is 1 (each rater put
// every case in one class) or the table is empty.
func CohenKappa(a, b, c, d int) (agreement float64, kappa *float64) {
	n := float64(a + b + c + d)
	if n == 0 {
		return 0, nil
	}
	po := float64(a+d) / n
	pe := (float64(a+b)*float64(a+c) + float64(c+d)*float64(b+d)) / (n * n)
	if pe >= 1 {
		return po, nil
	}
	k := (po - pe) / (1 - pe)
	return po, &k
}
