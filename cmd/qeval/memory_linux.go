//go:build linux

package main

import (
	"bufio"
	"debug/elf"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// madvNoHugePage is MADV_NOHUGEPAGE, which package syscall does not name.
const madvNoHugePage = 15

// releaseStartupPages gives back the executable's code and read-only data pages that
// start-up brought into memory. Every linked package is initialised before main, and
// the kernel maps the file in whole page-cache folios (64 KiB to 2 MiB) around each
// page touched, so most of the binary is resident before a command starts, whether it
// uses the code or not.
//
// Only read-only mappings of the executable are released, and never the part the
// dynamic loader wrote (the PT_GNU_RELRO segment: relocated pointers, the GOT): the
// pages released are clean copies of the file, which come back from the page cache on
// first touch. A Spider run's peak resident memory is the start-up's this way (81–90 MB
// after `go build`), not that plus the run's (104–108 MB). /proc/self/maps is read, not
// smaps: smaps walks every page table and cost 2 ms of each start.
func releaseStartupPages() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	relro, ok := relroRange(exe)
	if !ok {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || strings.Contains(fields[1], "w") {
			continue
		}
		lo, hi, _ := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(fields[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil || end <= start {
			continue
		}
		if off < relro[1] && relro[0] < off+(end-start) {
			continue // holds relocated data: its pages are the loader's, not the file's
		}
		// The page cache may hold the file in 2 MiB folios, which the kernel maps
		// whole: one byte touched costs 2 MiB. Ask for small pages from now on.
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), uintptr(madvNoHugePage))
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), uintptr(syscall.MADV_DONTNEED))
	}
}

// relroRange is the file range, page-aligned, of exe's PT_GNU_RELRO segment (empty
// when it has none); ok is false when exe cannot be read as ELF.
func relroRange(exe string) (r [2]uint64, ok bool) {
	f, err := elf.Open(exe)
	if err != nil {
		return r, false
	}
	defer f.Close()
	page := uint64(os.Getpagesize())
	for _, p := range f.Progs {
		if p.Type == elf.PT_GNU_RELRO {
			return [2]uint64{p.Off &^ (page - 1), (p.Off + p.Filesz + page - 1) &^ (page - 1)}, true
		}
	}
	return r, true
}
