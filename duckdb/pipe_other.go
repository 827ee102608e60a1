//go:build !linux

package duckdb

import "os"

func pipe() (r, w *os.File, err error) { return os.Pipe() }
