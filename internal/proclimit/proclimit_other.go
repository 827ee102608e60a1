//go:build !linux

package proclimit

// CapAddressSpace does nothing outside Linux.
func CapAddressSpace(uint64) error { return nil }

func wrapper() []string { return nil }

// physicalMemory is unknown outside Linux.
func physicalMemory() uint64 { return 0 }
