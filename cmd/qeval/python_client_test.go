package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPythonClient runs the Python client's own tests (clients/python/tests) against a
// live `qeval serve` started by them from this test binary (TestMain makes it qeval).
func TestPythonClient(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Python client's tests start a server")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the Python client (clients/python) cannot be tested")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "clients", "python")
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "QEVAL_TEST_MAIN=1", "QEVAL_CMD="+self+" --", "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest in %s: %v\n%s", dir, err, out)
	}
	t.Logf("%s", out)
}
