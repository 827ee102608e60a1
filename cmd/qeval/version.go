package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/qeval/qeval"
)

// version is the release's version, set at build time with -ldflags "-X
// main.version=v1.2.3" (.ci/build does, for the release binaries and the container
// image). Without it, the version the go command recorded is used: the module
// version of `go install github.com/qeval/qeval/cmd/qeval@v1.2.3`, or the one it
// derives from the repository's tags and commit for a go build in a checkout.
// Reports record it as run.qeval_version.
var version = "dev"

// commit is set with -ldflags "-X main.commit=<hash>" where the build cannot read the
// repository (a container build whose context has no .git); the go command's
// vcs.revision wins when it recorded one.
var commit = ""

func init() {
	bi, _ := debug.ReadBuildInfo()
	version = resolveVersion(version, bi)
}

// resolveVersion is v when it was set at build time, else the main module's version
// from the build information ("(devel)", which carries nothing, is not used).
func resolveVersion(v string, bi *debug.BuildInfo) string {
	if v != "dev" || bi == nil {
		return v
	}
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		return mv
	}
	return v
}

// versionLine is what `qeval version` prints: the version, the commit it was built
// from (and whether the tree had uncommitted changes), the Go version and the platform.
func versionLine(v, c string, bi *debug.BuildInfo) string {
	var rev, when string
	modified := false
	goVersion := runtime.Version()
	if bi != nil {
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if rev == "" {
		rev = c
	}
	var parts []string
	if rev != "" {
		p := "commit " + rev
		if modified {
			p += " (modified)"
		}
		if when != "" {
			p += " " + when
		}
		parts = append(parts, p)
	} else {
		parts = append(parts, "commit unknown")
	}
	parts = append(parts, fmt.Sprintf("%s %s/%s", goVersion, runtime.GOOS, runtime.GOARCH))
	return fmt.Sprintf("qeval %s (%s)", v, strings.Join(parts, ", "))
}

func cmdVersion(_ context.Context, args []string, e *env) int {
	fs := newFlags("version", "", e)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return fail(e, &qeval.Error{Code: qeval.CodeInvalid, Message: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), Hint: "qeval version"})
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, versionLine(version, commit, bi))
	return exitOK
}
