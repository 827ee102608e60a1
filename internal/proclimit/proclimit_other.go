//go:build !linux

package proclimit

// CapAddressSpace does nothing outside Linux.
func CapAddressSpace(uint64) error { return nil }

func wrapper() []string { return nil }
