package proclimit

import (
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// Bounds of the default address-space cap (see CapFromSetting).
const (
	minAddressSpace     = 4 << 30
	defaultAddressSpace = 8 << 30
)

// addressSpaceCap is the address-space cap QEVAL_MAX_MEMORY (setting) asks for on a
// machine of ram bytes: 0 for none.
func addressSpaceCap(setting string, ram uint64) (uint64, error) {
	setting = strings.TrimSpace(setting)
	switch {
	case strings.EqualFold(setting, "off"):
		return 0, nil
	case setting != "":
		n, err := parseBytes(setting)
		if err != nil {
			return 0, &qeval.Error{Code: qeval.CodeInvalid, Op: "QEVAL_MAX_MEMORY", Message: err.Error(), Hint: "write bytes, or a number with KiB, MiB or GiB (8GiB), or off"}
		}
		return n, nil
	}
	limit := uint64(defaultAddressSpace)
	if ram > 0 {
		limit = min(limit, ram/4*3)
	}
	return max(limit, minAddressSpace), nil
}

// parseBytes reads 123, 64KiB, 512MiB or 8GiB.
func parseBytes(s string) (uint64, error) {
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, &qeval.Error{Code: qeval.CodeInvalid, Message: strconv.Quote(s) + " is not a size"}
	}
	return n * mult, nil
}

// CapFromSetting sets the process's soft address-space limit (RLIMIT_AS), so that an
// engine that allocates past it fails its query with "out of memory" instead of the
// system killing the run: DuckDB builds some values outside its memory_limit
// (list_value(range(1000000000)) asked for one 8 GB block, then grew to 24 GB and the
// process was killed). The cap is setting, QEVAL_MAX_MEMORY's value (bytes, or with KiB, MiB, GiB; "off"
// for none), by default 8 GiB or three quarters of the machine's memory, whichever is
// smaller, and never under 4 GiB (the Go runtime and the engines reserve ~2 GB of
// address space they do not use). It is never raised past the hard limit, and the
// programs qeval starts (target commands) get back the limit qeval started with.
func CapFromSetting(setting string) error {
	limit, err := addressSpaceCap(setting, physicalMemory())
	if err != nil || limit == 0 {
		return err
	}
	return CapAddressSpace(limit)
}
