package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name, version, commit string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"Release", "v1.2.3", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Settings: vcs("vcs.revision", "0123456789abcdef", "vcs.time", "2026-11-27T10:00:00Z", "vcs.modified", "false")},
			"qeval v1.2.3 (commit 0123456789abcdef 2026-11-27T10:00:00Z, go1.26.8 " + platform + ")"},
		{"Modified", "dev", "", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs("vcs.revision", "abc", "vcs.modified", "true")},
			"qeval dev (commit abc (modified), go1.26.8 " + platform + ")"},
		// a container build has no .git: the commit comes from -X main.commit
		{"CommitFromLdflags", "v1.2.3", "feedbeef", &debug.BuildInfo{GoVersion: "go1.26.8"},
			"qeval v1.2.3 (commit feedbeef, go1.26.8 " + platform + ")"},
		{"VCSWinsOverLdflags", "v1.2.3", "feedbeef", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs("vcs.revision", "abc")},
			"qeval v1.2.3 (commit abc, go1.26.8 " + platform + ")"},
		{"NothingKnown", "dev", "", nil, "qeval dev (commit unknown, " + runtime.Version() + " " + platform + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionLine(tc.version, tc.commit, tc.bi); got != tc.want {
				t.Errorf("versionLine=%q, want %q", got, tc.want)
			}
		})
	}
}

func TestResolveVersion(t *testing.T) {
	for _, tc := range []struct {
		set, module, want string
	}{
		{"dev", "v1.4.0", "v1.4.0"}, // go install …@v1.4.0
		{"dev", "(devel)", "dev"},
		{"dev", "", "dev"},
		{"v2.0.0", "v1.4.0", "v2.0.0"}, // -X main.version wins
	} {
		if got := resolveVersion(tc.set, &debug.BuildInfo{Main: debug.Module{Version: tc.module}}); got != tc.want {
			t.Errorf("resolveVersion(%q, module %q)=%q, want %q", tc.set, tc.module, got, tc.want)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, stderr := runCLI(t, "", args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		if !strings.HasPrefix(out, "qeval "+version+" (") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: %q, want the version and %s", args, out, runtime.Version())
		}
	}
	if _, out, _ := runCLI(t, "", "help"); !strings.Contains(out, "  version ") {
		t.Errorf("help does not list version:\n%s", out)
	}
}
