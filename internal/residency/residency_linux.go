//go:build linux

package residency

import (
	"bufio"
	"debug/elf"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// madvNoHugePage is MADV_NOHUGEPAGE, which package syscall does not name.
const madvNoHugePage = 15

// self is the executable's path and image, read once.
var self = sync.OnceValues(func() (string, *image) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil
	}
	img, ok := readImage(exe)
	if !ok {
		return "", nil
	}
	return exe, &img
})

// Release gives back the resident pages of the executable's read-only mappings, the
// relocated one excepted. /proc/self/maps is read, not smaps: smaps walks every page
// table and cost 2 ms of each start.
func Release() {
	exe, img := self()
	if img == nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	for _, r := range releasable(f, exe, *img) {
		// No huge page may map or collapse these ranges (one PMD maps 2 MiB whatever
		// was touched); the page cache's large folios are still mapped whole, a page
		// table entry each, which is why the pages are given back at all.
		syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], madvNoHugePage)
		syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], syscall.MADV_DONTNEED)
	}
}

// releasable lists the address ranges, from a /proc/<pid>/maps listing, of exe's
// read-only mappings that do not overlap its RELRO segment.
func releasable(maps io.Reader, exe string, img image) [][2]uintptr {
	var out [][2]uintptr
	sc := bufio.NewScanner(maps)
	bias, biasKnown := uint64(0), false
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe {
			continue
		}
		lo, hi, _ := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(fields[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil || end <= start {
			continue
		}
		if !biasKnown {
			// the lowest mapping of the file is its first loaded segment: where it
			// landed says how far the loader moved the image (0 unless built as PIE)
			if off != 0 {
				return nil
			}
			bias, biasKnown = start-img.base, true
		}
		if strings.Contains(fields[1], "w") {
			continue
		}
		if start < img.relro[1]+bias && img.relro[0]+bias < end {
			continue // holds relocated data: its pages are the loader's, not the file's
		}
		out = append(out, [2]uintptr{uintptr(start), uintptr(end)})
	}
	return out
}

// image is where an executable asks to be loaded: the page-aligned virtual address of
// its first loadable segment, and the page-aligned virtual range of its PT_GNU_RELRO
// segment (empty when it has none). Addresses, not file offsets, tell the relocated
// pages apart: the last file page of the read-only data is often also the first of the
// RELRO segment, mapped twice, and only the second mapping was written by the loader.
type image struct {
	base  uint64
	relro [2]uint64
}

// readImage reads exe's image; ok is false when exe cannot be read as ELF, loads
// nothing or has text relocations.
func readImage(exe string) (img image, ok bool) {
	f, err := elf.Open(exe)
	if err != nil {
		return img, false
	}
	defer f.Close()
	// With text relocations the loader wrote into read-only segments too: their
	// pages are no longer the file's, and nothing is given back.
	if v, _ := f.DynValue(elf.DT_TEXTREL); len(v) > 0 {
		return img, false
	}
	if v, _ := f.DynValue(elf.DT_FLAGS); len(v) > 0 && elf.DynFlag(v[0])&elf.DF_TEXTREL != 0 {
		return img, false
	}
	page := uint64(os.Getpagesize())
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			if !ok || p.Vaddr&^(page-1) < img.base {
				img.base, ok = p.Vaddr&^(page-1), true
			}
		case elf.PT_GNU_RELRO:
			img.relro = [2]uint64{p.Vaddr &^ (page - 1), (p.Vaddr + p.Memsz + page - 1) &^ (page - 1)}
		}
	}
	return img, ok
}
