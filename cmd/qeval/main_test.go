package main

import (
	"os"
	"testing"
)

// TestMain lets a test run the command in a process of its own (to measure it):
// with QEVAL_TEST_MAIN=1 the test binary is qeval, with the arguments after "--".
func TestMain(m *testing.M) {
	if os.Getenv("QEVAL_TEST_MAIN") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"qeval"}, os.Args[i+1:]...)
				break
			}
		}
		main()
		return
	}
	os.Exit(m.Run())
}
