//go:build linux

package residency

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Release itself is tested in cmd/qeval (TestReleaseStartupPages), on a binary large
// enough that the pages the test's own code brings back (a whole page-cache folio, up to
// 2 MiB, for each page touched) cannot hide what was given back.

// The RELRO segment is found by address: in a PIE (/bin/sh) it lies above the image's
// base; a file that is not ELF is refused.
func TestReadImage(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("the test binary's path is unknown here: %v", err)
	}
	if _, ok := readImage(exe); !ok {
		t.Errorf("the test binary %s did not read as ELF", exe)
	}
	if _, ok := readImage(os.Args[0] + ".none"); ok {
		t.Error("a missing file read as ELF")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skipf("no /bin/sh to read a RELRO segment from: %v", err)
	}
	img, ok := readImage("/bin/sh")
	if !ok || img.relro[1] <= img.relro[0] || img.relro[0] < img.base || img.relro[0]%uint64(os.Getpagesize()) != 0 {
		t.Errorf("/bin/sh: %+v %v, want a page-aligned, non-empty RELRO range above the base", img, ok)
	}
}

// Which mappings are released, from real listings: a non-PIE image whose read-only data
// ends in the file page its RELRO segment starts in (the file offsets overlap, the
// addresses do not), and a PIE loaded at a random address.
func TestReleasable(t *testing.T) {
	const exe = "/tmp/qeval"
	nonPIE := `00400000-00421000 r--p 00000000 fe:00 9979008 /tmp/qeval
00421000-0499b000 r-xp 00021000 fe:00 9979008 /tmp/qeval
0499b000-0804c000 r--p 0459b000 fe:00 9979008 /tmp/qeval
0804c000-08104000 r--p 07c4b000 fe:00 9979008 /tmp/qeval
08104000-08ab2000 rw-p 07d03000 fe:00 9979008 /tmp/qeval
08ab2000-0ad25000 rw-p 00000000 00:00 0
7f554cc44000-7f554cd9a000 r-xp 00026000 fe:00 326269 /usr/lib/x86_64-linux-gnu/libc.so.6
`
	got := releasable(strings.NewReader(nonPIE), exe, image{base: 0x400000, relro: [2]uint64{0x804c000, 0x8104000}})
	want := [][2]uintptr{{0x400000, 0x421000}, {0x421000, 0x499b000}, {0x499b000, 0x804c000}}
	if !slices.Equal(got, want) {
		t.Errorf("non-PIE: %x, want %x", got, want)
	}
	pie := `55d0c0a00000-55d0c0a10000 r--p 00000000 fe:00 1 /tmp/qeval
55d0c0a10000-55d0c0b00000 r-xp 00010000 fe:00 1 /tmp/qeval
55d0c0b00000-55d0c0b40000 r--p 00100000 fe:00 1 /tmp/qeval
55d0c0b40000-55d0c0b42000 r--p 0013f000 fe:00 1 /tmp/qeval
55d0c0b42000-55d0c0b50000 rw-p 00141000 fe:00 1 /tmp/qeval
`
	got = releasable(strings.NewReader(pie), exe, image{base: 0, relro: [2]uint64{0x140000, 0x142000}})
	want = [][2]uintptr{{0x55d0c0a00000, 0x55d0c0a10000}, {0x55d0c0a10000, 0x55d0c0b00000}, {0x55d0c0b00000, 0x55d0c0b40000}}
	if !slices.Equal(got, want) {
		t.Errorf("PIE: %x, want %x", got, want)
	}
	// a listing that does not start at the file's first segment says nothing safe
	if got := releasable(strings.NewReader(pie[strings.Index(pie, "\n")+1:]), exe, image{relro: [2]uint64{0x140000, 0x142000}}); got != nil {
		t.Errorf("listing without the first segment: %x, want nothing", got)
	}
}
