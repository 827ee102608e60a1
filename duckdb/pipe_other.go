//go:build !linux

package duckdb

import (
	"os"
	"syscall"
)

func pipe() (r, w *os.File, err error) { return os.Pipe() }

func workerAttr() *syscall.SysProcAttr { return nil }
