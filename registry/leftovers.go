package registry

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/mysql"
	"github.com/qeval/qeval/postgres"
)

// Leftover is a sandbox copy of a stateful case: a file or folder in the temporary
// folder, or a database on a server.
type Leftover struct {
	// Where is the folder, or the server as it may be printed.
	Where string
	Name  string
	// Owner is the process that made it; InUse is set while that process runs on this
	// machine (its copies are left alone).
	Owner int
	InUse bool
	// Removed is set when Clean removed it; Err says why it could not.
	Removed bool
	Err     string
}

func (l Leftover) String() string {
	state := "left behind"
	switch {
	case l.Removed:
		state = "removed"
	case l.Err != "":
		state = "not removed: " + l.Err
	case l.InUse:
		state = fmt.Sprintf("in use by process %d", l.Owner)
	}
	return fmt.Sprintf("%s  %s  (%s)", l.Where, l.Name, state)
}

// serverCopies lists and drops the sandbox copies of the server engines, by name.
var serverCopies = map[string]struct {
	list func(ctx context.Context, dsn string) ([]string, error)
	drop func(ctx context.Context, dsn, name string) error
}{
	"postgres": {postgres.Sandboxes, postgres.DropSandbox},
	"mysql":    {mysql.Sandboxes, mysql.DropSandbox},
}

// Leftovers lists the sandbox copies in dir (the temporary folder when "") and on the
// servers dsns name; with remove, it removes those whose process no longer runs here.
// The servers that cannot be read are errors; the others are listed still.
func Leftovers(ctx context.Context, dir string, dsns []string, remove bool) ([]Leftover, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	var out []Leftover
	entries, _ := os.ReadDir(dir)
	for _, en := range entries {
		pid, ok := qeval.SandboxOwner(en.Name())
		if !ok {
			continue
		}
		l := Leftover{Where: dir, Name: en.Name(), Owner: pid, InUse: running(pid)}
		if remove && !l.InUse {
			if err := os.RemoveAll(filepath.Join(dir, en.Name())); err != nil {
				l.Err = err.Error()
			} else {
				l.Removed = true
			}
		}
		out = append(out, l)
	}
	var errs []string
	for _, dsn := range dsns {
		e := EngineFor(dsn)
		ops, ok := serverCopies[e.Name]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: %s keeps no sandbox copies (postgres and mysql do)", e.Show(dsn), e.Name))
			continue
		}
		names, err := ops.list(ctx, dsn)
		if err != nil {
			errs = append(errs, e.Show(dsn)+": "+qeval.ErrorMessage(err))
			continue
		}
		for _, n := range names {
			pid, _ := qeval.SandboxOwner(n)
			l := Leftover{Where: e.Show(dsn), Name: n, Owner: pid, InUse: running(pid)}
			if remove && !l.InUse {
				if err := ops.drop(ctx, dsn, n); err != nil {
					l.Err = qeval.ErrorMessage(err)
				} else {
					l.Removed = true
				}
			}
			out = append(out, l)
		}
	}
	if len(errs) > 0 {
		return out, &qeval.Error{Code: qeval.CodeUnavailable, Op: "list sandbox copies", Message: strings.Join(errs, "; ")}
	}
	return out, nil
}

// running reports whether process pid runs on this machine (a server's copy made on
// another machine looks like one whose process has ended).
func running(pid int) bool {
	if pid <= 0 || pid == os.Getpid() {
		return pid == os.Getpid()
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return true // FindProcess found it
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM) // another user's process runs too
}

// RolePassword reads the password of --password-file, or makes a new one: 24 random
// bytes, 32 characters of URL-safe base64. It reports whether the file gave it.
func RolePassword(file string) (string, bool, error) {
	if file == "" {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", false, &qeval.Error{Code: qeval.CodeInternal, Op: "make a password", Message: err.Error()}
		}
		return base64.RawURLEncoding.EncodeToString(b[:]), false, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", false, &qeval.Error{Code: qeval.CodeInvalid, Op: "--password-file", Message: err.Error()}
	}
	pw := strings.TrimRight(string(raw), "\r\n")
	switch {
	case len(pw) < 12:
		return "", false, &qeval.Error{Code: qeval.CodeInvalid, Op: "--password-file " + file, Message: "the password is shorter than 12 characters"}
	case strings.ContainsAny(pw, "'\"\\`\n\r\t\x00"):
		return "", false, &qeval.Error{Code: qeval.CodeInvalid, Op: "--password-file " + file,
			Message: "the password holds a quote, a backslash or a control character", Hint: "use letters, digits and punctuation other than quotes"}
	}
	return pw, true, nil
}
