//go:build !linux

package main

// releaseStartupPages does nothing outside Linux.
func releaseStartupPages() {}

// capAddressSpace does nothing outside Linux.
func capAddressSpace(func(string) string) error { return nil }
