package kqlexec

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/qeval/qeval/internal/lazyregexp"
)

// parseIPv4 reads "a.b.c.d" or "a.b.c.d/n" as an address and a prefix length.
func parseIPv4(s string) (uint32, int, bool) {
	s = strings.TrimSpace(s)
	bits := 32
	if addr, p, ok := strings.Cut(s, "/"); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 32 {
			return 0, 0, false
		}
		s, bits = addr, n
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return 0, 0, false
	}
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), bits, true
}

func maskOf(bits int) uint32 {
	if bits <= 0 {
		return 0
	}
	return ^uint32(0) << (32 - bits)
}

func ipv4Text(v uint32) string {
	return strconv.Itoa(int(v>>24)) + "." + strconv.Itoa(int(v>>16&255)) + "." + strconv.Itoa(int(v>>8&255)) + "." + strconv.Itoa(int(v&255))
}

// ipArgs reads an address and an optional prefix argument; the smaller prefix wins.
func ipArgs(a []any) (uint32, int, bool) {
	ip, bits, ok := parseIPv4(toString(a[0]))
	if !ok {
		return 0, 0, false
	}
	if len(a) > 1 && a[1] != nil {
		m, ok := toLong(a[1])
		if !ok || m < 0 || m > 32 {
			return 0, 0, false
		}
		bits = min(bits, int(m))
	}
	return ip & maskOf(bits), bits, true
}

func inRange(ip string, rng string) (bool, bool) {
	a, _, ok1 := parseIPv4(ip)
	r, bits, ok2 := parseIPv4(rng)
	if !ok1 || !ok2 {
		return false, false
	}
	m := maskOf(bits)
	return a&m == r&m, true
}

// flatten reads the arguments from i on as strings, dynamic arrays flattened.
func flatten(a []any, i int) []string {
	var out []string
	for _, x := range a[i:] {
		if xs, ok := arr(x); ok {
			for _, e := range xs {
				out = append(out, toString(Dyn{e}))
			}
			continue
		}
		out = append(out, toString(x))
	}
	return out
}

var ipv4InText = lazyregexp.New(`\d{1,3}(?:\.\d{1,3}){3}`)

// ipv4sIn finds the properly delimited IPv4 addresses in a text.
func ipv4sIn(s string) []string {
	var out []string
	for _, m := range ipv4InText.FindAllStringIndex(s, -1) {
		// delimited by characters that are neither letters nor digits (nor a dot)
		if m[0] > 0 && (isAlnum(s[m[0]-1]) || s[m[0]-1] == '.') {
			continue
		}
		if m[1] < len(s) && (isAlnum(s[m[1]]) || s[m[1]] == '.') {
			continue
		}
		if _, _, ok := parseIPv4(s[m[0]:m[1]]); ok {
			out = append(out, s[m[0]:m[1]])
		}
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// hasIPv4 is has_ipv4, has_any_ipv4 (prefix false) and has_ipv4_prefix,
// has_any_ipv4_prefix (their pages): a wanted address or prefix that is not valid
// never matches; a valid prefix is a whole address or one to three parts ending
// with a dot (192.168.).
func hasIPv4(a []any, prefix bool) any {
	found := ipv4sIn(toString(a[0]))
	for _, want := range flatten(a, 1) {
		whole := validIPv4(want)
		if !whole && (!prefix || !validIPv4Prefix(want)) {
			continue
		}
		for _, f := range found {
			if f == want || (!whole && strings.HasPrefix(f, want)) {
				return true
			}
		}
	}
	return false
}

// validIPv4 reports whether s is a dotted IPv4 address of four parts, each 0 to 255.
func validIPv4(s string) bool {
	parts := strings.Split(s, ".")
	return len(parts) == 4 && validIPv4Parts(parts)
}

// validIPv4Prefix reports whether s is one to three IPv4 parts, each followed by a dot.
func validIPv4Prefix(s string) bool {
	if !strings.HasSuffix(s, ".") {
		return false
	}
	parts := strings.Split(strings.TrimSuffix(s, "."), ".")
	return len(parts) >= 1 && len(parts) <= 3 && validIPv4Parts(parts)
}

func validIPv4Parts(parts []string) bool {
	for _, p := range parts {
		if p == "" || len(p) > 3 {
			return false
		}
		n := 0
		for i := 0; i < len(p); i++ {
			if !isDigit(p[i]) {
				return false
			}
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}

// ipFuncs defines this file's functions (see library in funcs.go).
func ipFuncs(def func(string, *fnDef)) {
	def("parse_ipv4", fixed(TLong, func(a []any) any {
		ip, bits, ok := parseIPv4(toString(a[0]))
		if !ok {
			return nil
		}
		return int64(ip & maskOf(bits))
	}, TString))
	def("parse_ipv4_mask", fixed(TLong, func(a []any) any {
		ip, _, ok := ipArgs(a)
		if !ok {
			return nil
		}
		return int64(ip)
	}, TString, TLong))
	def("format_ipv4", &fnDef{min: 1, max: 2, args: []Type{"", TLong}, ret: TString, fn: func(a []any) any {
		if n, ok := a[0].(int64); ok {
			a = append([]any{ipv4Text(uint32(n))}, a[1:]...)
		}
		ip, _, ok := ipArgs(a)
		if !ok {
			return ""
		}
		return ipv4Text(ip)
	}})
	def("format_ipv4_mask", &fnDef{min: 1, max: 2, args: []Type{"", TLong}, ret: TString, fn: func(a []any) any {
		if n, ok := a[0].(int64); ok {
			a = append([]any{ipv4Text(uint32(n))}, a[1:]...)
		}
		ip, bits, ok := ipArgs(a)
		if !ok {
			return ""
		}
		return ipv4Text(ip) + "/" + strconv.Itoa(bits)
	}})
	def("ipv4_is_in_range", fixed(TBool, func(a []any) any {
		r, ok := inRange(toString(a[0]), toString(a[1]))
		if !ok {
			return nil
		}
		return r
	}, TString, TString))
	def("ipv4_is_in_any_range", &fnDef{min: 2, max: -1, ret: TBool, fn: func(a []any) any {
		for _, rng := range flatten(a, 1) {
			r, ok := inRange(toString(a[0]), rng)
			if !ok {
				return nil
			}
			if r {
				return true
			}
		}
		return false
	}})
	def("ipv4_netmask_suffix", fixed(TLong, func(a []any) any {
		if a[0] == nil {
			return nil
		}
		_, bits, ok := parseIPv4(toString(a[0]))
		if !ok {
			return nil
		}
		return int64(bits)
	}, TString))
	def("ipv4_is_private", fixed(TBool, func(a []any) any {
		ip, _, ok := parseIPv4(toString(a[0]))
		if !ok {
			return nil
		}
		return ip&maskOf(8) == 10<<24 || ip&maskOf(12) == 172<<24|16<<16 || ip&maskOf(16) == 192<<24|168<<16
	}, TString))
	cmp := func(a []any) (int, bool) {
		x, xb, ok1 := parseIPv4(toString(a[0]))
		y, yb, ok2 := parseIPv4(toString(a[1]))
		if !ok1 || !ok2 {
			return 0, false
		}
		bits := min(xb, yb)
		if len(a) > 2 && a[2] != nil {
			m, _ := toLong(a[2])
			bits = min(bits, int(m))
		}
		x, y = x&maskOf(bits), y&maskOf(bits)
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	def("ipv4_compare", &fnDef{min: 2, max: 3, args: []Type{TString, TString, TLong}, ret: TLong, fn: func(a []any) any {
		c, ok := cmp(a)
		if !ok {
			return nil
		}
		return int64(c)
	}})
	def("ipv4_is_match", &fnDef{min: 2, max: 3, args: []Type{TString, TString, TLong}, ret: TBool, fn: func(a []any) any {
		c, ok := cmp(a)
		if !ok {
			return nil
		}
		return c == 0
	}})
	def("has_ipv4", fixed(TBool, func(a []any) any { return hasIPv4(a, false) }, TString, TString))
	def("has_ipv4_prefix", fixed(TBool, func(a []any) any { return hasIPv4(a, true) }, TString, TString))
	def("has_any_ipv4", &fnDef{min: 2, max: -1, ret: TBool, fn: func(a []any) any { return hasIPv4(a, false) }})
	def("has_any_ipv4_prefix", &fnDef{min: 2, max: -1, ret: TBool, fn: func(a []any) any { return hasIPv4(a, true) }})
	def("ipv4_range_to_cidr_list", fixed(TDynamic, func(a []any) any {
		lo, _, ok1 := parseIPv4(toString(a[0]))
		hi, _, ok2 := parseIPv4(toString(a[1]))
		if !ok1 || !ok2 || lo > hi {
			return nil
		}
		out := []any{}
		for cur := uint64(lo); cur <= uint64(hi); {
			bits := 32
			for bits > 0 {
				size := uint64(1) << (32 - (bits - 1))
				if cur%size != 0 || cur+size-1 > uint64(hi) {
					break
				}
				bits--
			}
			out = append(out, ipv4Text(uint32(cur))+"/"+strconv.Itoa(bits))
			cur += uint64(1) << (32 - bits)
		}
		return Dyn{out}
	}, TString, TString))
	def("ipv6_is_in_range", fixed(TBool, func(a []any) any {
		ip, ib, ok1 := parseIP6(toString(a[0]))
		r, rb, ok2 := parseIP6(toString(a[1]))
		if !ok1 || !ok2 {
			return nil
		}
		return masked6(ip, min(ib, rb)) == masked6(r, rb)
	}, TString, TString))
	def("ipv6_is_in_any_range", &fnDef{min: 2, max: -1, ret: TBool, fn: func(a []any) any {
		ip, ib, ok := parseIP6(toString(a[0]))
		if !ok {
			return nil
		}
		var ranges []string
		for _, r := range a[1:] {
			if xs, ok := arr(r); ok {
				for _, x := range xs {
					ranges = append(ranges, toString(Dyn{x}))
				}
			} else {
				ranges = append(ranges, toString(r))
			}
		}
		for _, rs := range ranges {
			r, rb, ok := parseIP6(rs)
			if !ok {
				return nil
			}
			if masked6(ip, min(ib, rb)) == masked6(r, rb) {
				return true
			}
		}
		return false
	}})
	def("ipv6_compare", &fnDef{min: 2, max: 3, args: []Type{TString, TString, TLong}, ret: TLong, fn: func(a []any) any {
		x, y, bits, ok := ip6Pair(a)
		if !ok {
			return nil
		}
		return int64(masked6(x, bits).Compare(masked6(y, bits)))
	}})
	def("ipv6_is_match", &fnDef{min: 2, max: 3, args: []Type{TString, TString, TLong}, ret: TBool, fn: func(a []any) any {
		x, y, bits, ok := ip6Pair(a)
		if !ok {
			return nil
		}
		return masked6(x, bits) == masked6(y, bits)
	}})
	def("parse_ipv6", fixed(TString, func(a []any) any {
		ip, bits, ok := parseIP6(toString(a[0]))
		if !ok {
			return ""
		}
		return canonical6(masked6(ip, bits))
	}, TString))
	def("parse_ipv6_mask", fixed(TString, func(a []any) any {
		ip, bits, ok := parseIP6(toString(a[0]))
		m, ok2 := toLong(a[1])
		if !ok || !ok2 || m < 0 || m > 128 {
			return ""
		}
		return canonical6(masked6(ip, min(bits, int(m))))
	}, TString, TLong))
}

// parseIP6 reads an IPv6 or IPv4 address with an optional /prefix as a 128-bit
// address and its prefix length: IPv4 (and ::a.b.c.d) maps to ::ffff:a.b.c.d with
// the prefix counted from bit 96.
func parseIP6(s string) (netip.Addr, int, bool) {
	s = strings.TrimSpace(s)
	addr, pfx, hasPfx := strings.Cut(s, "/")
	ip, err := netip.ParseAddr(addr)
	if err != nil || ip.Zone() != "" {
		return netip.Addr{}, 0, false
	}
	v4 := ip.Is4() || ip.Is4In6()
	if ip.Is6() && !ip.Is4In6() && strings.HasPrefix(addr, "::") && strings.Count(addr, ".") == 3 {
		// ::a.b.c.d, the deprecated IPv4-compatible form, is read as mapped
		b := ip.As16()
		ip, v4 = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	}
	if ip.Is4() {
		ip = netip.AddrFrom16(ip.As16())
	}
	bits := 128
	if hasPfx {
		n, err := strconv.Atoi(pfx)
		max := 128
		if v4 && strings.Contains(addr, ".") {
			max = 32
		}
		if err != nil || n < 0 || n > max {
			return netip.Addr{}, 0, false
		}
		bits = n
		if max == 32 {
			bits = 96 + n
		}
	}
	return ip, bits, true
}

func masked6(ip netip.Addr, bits int) netip.Addr {
	p, err := ip.Prefix(bits)
	if err != nil {
		return ip
	}
	return p.Addr()
}

// canonical6 writes all eight groups of four hex digits.
func canonical6(ip netip.Addr) string {
	b := ip.As16()
	var sb strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			sb.WriteByte(':')
		}
		sb.WriteString(fmt.Sprintf("%02x%02x", b[i], b[i+1]))
	}
	return sb.String()
}

// ip6Pair reads two addresses and the prefix to compare them on: the smallest of
// their own prefixes and the optional third argument.
func ip6Pair(a []any) (x, y netip.Addr, bits int, ok bool) {
	x, xb, ok1 := parseIP6(toString(a[0]))
	y, yb, ok2 := parseIP6(toString(a[1]))
	if !ok1 || !ok2 {
		return x, y, 0, false
	}
	bits = min(xb, yb)
	if len(a) > 2 && a[2] != nil {
		m, _ := toLong(a[2])
		if m < 0 || m > 128 {
			return x, y, 0, false
		}
		bits = min(bits, int(m))
	}
	return x, y, bits, true
}
