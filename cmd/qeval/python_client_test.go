package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestPythonClient_Package installs the client as a package (pip install
// ./clients/python, offline: --no-index --no-build-isolation) into a fresh virtual
// environment and runs the client's tests with it, from outside the source folder:
// the tests check qeval_client comes from the environment, and call the verl and TRL
// reward functions as those trainers do against a live server.
func TestPythonClient_Package(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: installs the Python client and starts a server")
	}
	py := buildPython(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	// a copy, so the build's egg-info and build/ folders land outside the checkout
	src := filepath.Join(tmp, "src")
	if err := os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "clients", "python"))); err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(tmp, "venv")
	if out, err := exec.Command(py, "-m", "venv", "--system-site-packages", venv).CombinedOutput(); err != nil {
		t.Fatalf("%s -m venv: %v\n%s", py, err, out)
	}
	vpy := filepath.Join(venv, "bin", "python")
	pip := exec.Command(vpy, "-m", "pip", "install", "--no-index", "--no-build-isolation", "--disable-pip-version-check", src)
	pip.Env = append(os.Environ(), "PIP_FIND_LINKS=", "PIP_NO_INPUT=1")
	if out, err := pip.CombinedOutput(); err != nil {
		t.Fatalf("pip install ./clients/python: %v\n%s", err, out)
	}
	// the tests alone, elsewhere: qeval_client can only come from the venv
	tests := filepath.Join(tmp, "tests")
	if err := os.CopyFS(tests, os.DirFS(filepath.Join(src, "tests"))); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(vpy, "-m", "unittest", "discover", "-s", tests, "-v")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "QEVAL_TEST_MAIN=1", "QEVAL_CMD="+self+" --", "QEVAL_CLIENT_INSTALLED=1", "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the client's tests on the installed package: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "test_imported_from_where_asked") || !strings.Contains(string(out), "test_batch_reward_manager") {
		t.Fatalf("the recipe tests did not run:\n%s", out)
	}
	t.Logf("%s", out)
}

// buildPython returns a Python that can build the package without the network (it has
// setuptools and wheel), or skips the test saying none does.
func buildPython(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		py, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if err := exec.Command(py, "-c", "import setuptools, wheel, venv, ensurepip").Run(); err == nil {
			return py
		}
		tried = append(tried, py)
	}
	t.Skipf("no Python with setuptools, wheel and venv (tried %v): the package cannot be built offline (Debian: python3-setuptools python3-wheel python3-venv)", tried)
	return ""
}
