package proclimit

import "testing"

func TestAddressSpaceCap(t *testing.T) {
	for _, tc := range []struct {
		setting string
		ram     uint64
		want    uint64
		bad     bool
	}{
		{"", 64 << 30, 8 << 30, false}, // a large machine: 8 GiB
		{"", 8 << 30, 6 << 30, false},  // three quarters of 8 GiB
		{"", 2 << 30, 4 << 30, false},  // never under 4 GiB
		{"", 0, 8 << 30, false},        // memory unknown
		{"off", 8 << 30, 0, false},     // none
		{"12GiB", 8 << 30, 12 << 30, false},
		{"512MiB", 8 << 30, 512 << 20, false},
		{"1048576", 8 << 30, 1 << 20, false},
		{"lots", 8 << 30, 0, true},
		{"0", 8 << 30, 0, true},
	} {
		got, err := addressSpaceCap(tc.setting, tc.ram)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("addressSpaceCap(%q, %d) = %d, %v; want %d (error %v)", tc.setting, tc.ram, got, err, tc.want, tc.bad)
		}
	}
}
