//go:build !linux

package residency

// Release does nothing outside Linux.
func Release() {}
