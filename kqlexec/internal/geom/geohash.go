package geom

import "strings"

// geohashAlphabet is the geohash base-32 alphabet.
const geohashAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// GeohashEncode is the geohash of p with n characters.
func GeohashEncode(p LonLat, n int) string {
	latLo, latHi, lonLo, lonHi := -90.0, 90.0, -180.0, 180.0
	var b strings.Builder
	bit, ch, even := 0, 0, true
	for b.Len() < n {
		if even {
			mid := (lonLo + lonHi) / 2
			if p[0] >= mid {
				ch = ch<<1 | 1
				lonLo = mid
			} else {
				ch <<= 1
				lonHi = mid
			}
		} else {
			mid := (latLo + latHi) / 2
			if p[1] >= mid {
				ch = ch<<1 | 1
				latLo = mid
			} else {
				ch <<= 1
				latHi = mid
			}
		}
		even = !even
		if bit++; bit == 5 {
			b.WriteByte(geohashAlphabet[ch])
			bit, ch = 0, 0
		}
	}
	return b.String()
}

// GeohashBox decodes a geohash to its cell: west, south, east, north.
func GeohashBox(h string) (w, s, e, n float64, ok bool) {
	if h == "" || len(h) > 18 {
		return 0, 0, 0, 0, false
	}
	s, n, w, e = -90, 90, -180, 180
	even := true
	for _, c := range strings.ToLower(h) {
		v := strings.IndexRune(geohashAlphabet, c)
		if v < 0 {
			return 0, 0, 0, 0, false
		}
		for k := 4; k >= 0; k-- {
			one := v>>k&1 == 1
			if even {
				mid := (w + e) / 2
				if one {
					w = mid
				} else {
					e = mid
				}
			} else {
				mid := (s + n) / 2
				if one {
					s = mid
				} else {
					n = mid
				}
			}
			even = !even
		}
	}
	return w, s, e, n, true
}
