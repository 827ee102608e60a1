package malloy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/qeval/qeval"
)

// node holds the bridge and the pinned npm packages it needs.
//
//go:embed node/package.json node/package-lock.json node/*.mjs
var node embed.FS

// CompilerVersion is the version of @malloydata/malloy the bridge pins.
const CompilerVersion = "0.0.431"

// MinNodeMajor is the oldest Node.js the compiler runs on.
const MinNodeMajor = 20

// installHint says what to install when Node.js or npm is missing.
const installHint = "install Node.js 20 or later and npm (Debian/Ubuntu: apt-get install nodejs npm); qeval then installs the Malloy compiler with npm, once"

// contentID names this version of the bridge and its packages: a change to the lock
// file or to a script installs a new folder.
func contentID() string {
	h := sha256.New()
	names, _ := fs.Glob(node, "node/*")
	sort.Strings(names)
	for _, n := range names {
		b, _ := node.ReadFile(n)
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// DefaultDir is where the bridge and its npm packages are installed:
// <user cache>/qeval/malloy/<content id>.
func DefaultDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "qeval", "malloy", contentID())
}

// findNode returns the node and npm binaries, or a CodeUnavailable error that says
// what to install.
func findNode(nodeBin, npmBin string) (string, string, error) {
	if nodeBin == "" {
		nodeBin = "node"
	}
	if npmBin == "" {
		npmBin = "npm"
	}
	n, err := exec.LookPath(nodeBin)
	if err != nil {
		return "", "", &qeval.Error{Code: qeval.CodeUnavailable, Message: "Malloy queries need Node.js, which is not installed (no " + nodeBin + " on PATH)", Hint: installHint}
	}
	m, err := exec.LookPath(npmBin)
	if err != nil {
		m = "" // needed only to install; an installed folder runs without it
	}
	return n, m, nil
}

// nodeMajor returns the major version of a node binary.
func nodeMajor(ctx context.Context, bin string) (int, string, error) {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return 0, "", &qeval.Error{Code: qeval.CodeUnavailable, Message: bin + " --version: " + err.Error(), Hint: installHint}
	}
	v := strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(v, "v"), ".", 2)[0])
	return major, v, nil
}

// installed reports whether dir holds a finished install.
func installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".installed"))
	return err == nil
}

// install puts the bridge and its pinned npm packages into dir, unless a finished
// install is there: into a fresh folder beside it, moved into place at the end, so a
// half-done install is never used and two installs at once leave one whole folder.
// notify, when set, is told before npm runs (it takes seconds).
func install(ctx context.Context, dir, npmBin string, notify func(string)) error {
	if installed(dir) {
		return nil
	}
	if npmBin == "" {
		return &qeval.Error{Code: qeval.CodeUnavailable, Message: "the Malloy compiler is not installed in " + dir + " and npm, which installs it, is not on PATH", Hint: installHint}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "install the Malloy compiler", Message: err.Error(), Err: err}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-")
	if err != nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "install the Malloy compiler", Message: err.Error(), Err: err}
	}
	defer os.RemoveAll(tmp)
	names, _ := fs.Glob(node, "node/*")
	for _, n := range names {
		b, _ := node.ReadFile(n)
		if err := os.WriteFile(filepath.Join(tmp, filepath.Base(n)), b, 0o644); err != nil {
			return &qeval.Error{Code: qeval.CodeUnavailable, Op: "install the Malloy compiler", Message: err.Error(), Err: err}
		}
	}
	if notify != nil {
		notify(fmt.Sprintf("malloy: installing the Malloy compiler %s with npm into %s (once)", CompilerVersion, dir))
	}
	// npm ci installs exactly the lock file's versions and checks their integrity;
	// no package's install script runs
	cmd := exec.CommandContext(ctx, npmBin, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", "--omit=dev")
	cmd.Dir = tmp
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "install the Malloy compiler (npm ci in " + dir + ")",
			Message: err.Error() + ": " + msg, Hint: "npm needs the npm registry once; afterwards no network is used", Err: err}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".installed"), []byte(CompilerVersion+"\n"), 0o644); err != nil {
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "install the Malloy compiler", Message: err.Error(), Err: err}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if installed(dir) {
			return nil // another qeval installed it meanwhile
		}
		return &qeval.Error{Code: qeval.CodeUnavailable, Op: "install the Malloy compiler", Message: err.Error(), Err: err}
	}
	return nil
}
