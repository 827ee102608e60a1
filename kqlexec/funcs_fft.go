package kqlexec

import (
	"math"
	"math/cmplx"
)

// maxFFTLength bounds the series series_fft and series_ifft transform.
const maxFFTLength = 1 << 20

// fftFuncs defines series_fft and series_ifft: the discrete Fourier transform of a
// complex series (real and imaginary parts) and its inverse (divided by the length,
// so that series_ifft(series_fft(x)) is x), each returning the real and the imaginary
// series. The two outputs are named real and imag, as Kusto.Language's Functions.cs
// declares them (series_fft_y_real, series_fft_y_imag).
func fftFuncs(def func(string, *fnDef)) {
	o := outs("real", TDynamic, "imag", TDynamic)
	transform := func(inverse bool) func(a []any) any {
		return func(a []any) any {
			re, _, ok := nums(a[0])
			if !ok || len(re) == 0 || len(re) > maxFFTLength {
				return nil
			}
			x := make([]complex128, len(re))
			for i, r := range re {
				x[i] = complex(r, 0)
			}
			if len(a) > 1 && a[1] != nil {
				im, _, ok := nums(a[1])
				if !ok || len(im) != len(re) {
					return nil
				}
				for i, v := range im {
					x[i] = complex(real(x[i]), v)
				}
			}
			y := fourier(x, inverse)
			outRe, outIm := make([]float64, len(y)), make([]float64, len(y))
			for i, v := range y {
				outRe[i], outIm[i] = real(v), imag(v)
			}
			return map[string]any{"real": realsDyn(outRe, nil).V, "imag": realsDyn(outIm, nil).V}
		}
	}
	def("series_fft", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TDynamic}, ret: TDynamic, outputs: o, fn: transform(false)})
	def("series_ifft", &fnDef{min: 1, max: 2, args: []Type{TDynamic, TDynamic}, ret: TDynamic, outputs: o, fn: transform(true)})
}

// fourier is the discrete Fourier transform of x: radix 2 when the length is a power
// of two, else Bluestein's chirp transform over a power-of-two convolution (so any
// length costs O(n log n)); the inverse is divided by the length.
func fourier(x []complex128, inverse bool) []complex128 {
	n := len(x)
	sign := -1.0
	if inverse {
		sign = 1
	}
	var y []complex128
	if n&(n-1) == 0 {
		y = radix2(x, sign)
	} else {
		y = bluestein(x, sign)
	}
	if inverse {
		for i := range y {
			y[i] /= complex(float64(n), 0)
		}
	}
	return y
}

// bluestein is the transform of any length: jk = (j² + k² − (k−j)²)/2 turns it into a
// convolution with a chirp, computed by power-of-two transforms.
func bluestein(x []complex128, sign float64) []complex128 {
	n := len(x)
	m := 1
	for m < 2*n-1 {
		m <<= 1
	}
	w := make([]complex128, n)
	for k := range w {
		// k² mod 2n keeps the angle exact for long series
		w[k] = cmplx.Rect(1, sign*math.Pi*float64(uint64(k)*uint64(k)%uint64(2*n))/float64(n))
	}
	a, b := make([]complex128, m), make([]complex128, m)
	for k := 0; k < n; k++ {
		a[k] = x[k] * w[k]
		b[k] = cmplx.Conj(w[k])
		if k > 0 {
			b[m-k] = cmplx.Conj(w[k])
		}
	}
	fa, fb := radix2(a, -1), radix2(b, -1)
	for i := range fa {
		fa[i] *= fb[i]
	}
	c := radix2(fa, 1)
	y := make([]complex128, n)
	for k := range y {
		y[k] = w[k] * c[k] / complex(float64(m), 0)
	}
	return y
}

// radix2 is the Cooley–Tukey transform of a power-of-two length series.
func radix2(x []complex128, sign float64) []complex128 {
	n := len(x)
	if n == 1 {
		return []complex128{x[0]}
	}
	even, odd := make([]complex128, n/2), make([]complex128, n/2)
	for i := 0; i < n/2; i++ {
		even[i], odd[i] = x[2*i], x[2*i+1]
	}
	e, o := radix2(even, sign), radix2(odd, sign)
	y := make([]complex128, n)
	for k := 0; k < n/2; k++ {
		t := cmplx.Rect(1, sign*2*math.Pi*float64(k)/float64(n)) * o[k]
		y[k], y[k+n/2] = e[k]+t, e[k]-t
	}
	return y
}
