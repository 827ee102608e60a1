//go:build !linux

package sqlite

// keepCopyBuffers does nothing where the C allocator is not glibc's (see the Linux one).
func keepCopyBuffers() {}
