package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The release artefacts: the Dockerfile, the release workflow and the scripts both
// run (.ci/build, .ci/package). Docker cannot run in the tests; what it would run can.

const repoRoot = "../.."

// dockerStage is one stage of a Dockerfile: FROM image AS name, and its instructions.
type dockerStage struct {
	from, name string
	instrs     []dockerInstr
}

type dockerInstr struct {
	cmd, args string // cmd upper-cased: RUN, COPY, …
}

// readDockerfile parses the Dockerfile's stages: comments dropped, continued lines joined.
func readDockerfile(t *testing.T) []dockerStage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var stages []dockerStage
	var cur strings.Builder
	flush := func() {
		line := strings.TrimSpace(cur.String())
		cur.Reset()
		if line == "" {
			return
		}
		cmd, args, _ := strings.Cut(line, " ")
		in := dockerInstr{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			st := dockerStage{from: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			}
			stages = append(stages, st)
			return
		}
		if len(stages) == 0 {
			if in.cmd != "ARG" {
				t.Fatalf("Dockerfile: %s before the first FROM", in.cmd)
			}
			return
		}
		stages[len(stages)-1].instrs = append(stages[len(stages)-1].instrs, in)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if s, ok := strings.CutSuffix(strings.TrimRight(line, " \t"), "\\"); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(line)
		flush()
	}
	flush()
	return stages
}

func stageNamed(t *testing.T, stages []dockerStage, name string) dockerStage {
	t.Helper()
	for _, s := range stages {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("Dockerfile has no stage %q", name)
	return dockerStage{}
}

// goMinor is go.mod's go version as major.minor ("1.26").
func goMinor(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	return string(m[1])
}

// TestDockerfile checks the stages: a cgo build stage on go.mod's Go version running
// .ci/build, a slim default stage with the binary, and the optional malloy target.
func TestDockerfile(t *testing.T) {
	stages := readDockerfile(t)
	build := stageNamed(t, stages, "build")
	if want := "golang:" + goMinor(t) + "-"; !strings.HasPrefix(build.from, want) {
		t.Errorf("build stage FROM %s, want %s… (go.mod's Go)", build.from, want)
	}
	var runsBuild bool
	for _, in := range build.instrs {
		runsBuild = runsBuild || in.cmd == "RUN" && strings.Contains(in.args, ".ci/build /out")
	}
	if !runsBuild {
		t.Error("the build stage does not RUN .ci/build /out")
	}
	last := stages[len(stages)-1]
	if last.name != "runtime" || last.from != "base" {
		t.Errorf("default (last) stage %q FROM %s, want runtime FROM base", last.name, last.from)
	}
	base := stageNamed(t, stages, "base")
	if !strings.HasPrefix(base.from, "debian:") || !strings.Contains(base.from, "slim") {
		t.Errorf("base FROM %s, want a slim Debian", base.from)
	}
	if !slices.Contains(base.instrs, dockerInstr{"COPY", "--from=build /out/qeval /usr/local/bin/qeval"}) {
		t.Error("base does not copy the built binary to /usr/local/bin/qeval")
	}
	m := stageNamed(t, stages, "malloy")
	if m.from != "base" {
		t.Errorf("malloy FROM %s, want base", m.from)
	}
	// the malloy stage installs the compiler by running the bundled example, whose files
	// it copies from the repository
	var warms bool
	for _, in := range m.instrs {
		warms = warms || in.cmd == "RUN" && strings.Contains(in.args, "qeval run /opt/qeval/examples/malloy/suite.yaml")
	}
	if !warms {
		t.Error("the malloy stage does not run the Malloy example (which installs the compiler)")
	}
	for _, s := range stages {
		for _, in := range s.instrs {
			f := strings.Fields(in.args)
			if in.cmd != "COPY" || len(f) < 2 || strings.HasPrefix(in.args, "--from") {
				continue
			}
			for _, src := range f[:len(f)-1] {
				if !strings.HasPrefix(src, "--") && src != "." {
					if _, err := os.Stat(filepath.Join(repoRoot, src)); err != nil {
						t.Errorf("stage %s: COPY %s: not in the repository (%v)", s.name, src, err)
					}
				}
			}
		}
	}
	// the examples' own files build the Malloy stage: they must be in the build context
	ignore, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(ignore), "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		for _, need := range []string{".ci/build", ".ci/package", "examples/malloy/suite.yaml", "examples/spider/database", "malloy/node/package-lock.json", "go.mod", "cmd/qeval/main.go"} {
			if dockerIgnores(l, need) {
				t.Errorf(".dockerignore line %q leaves %s out of the build context", l, need)
			}
		}
	}
}

// dockerIgnores reports whether a .dockerignore pattern excludes path: Docker cleans the
// pattern (a trailing slash goes), matches it from the root, and excludes what is under
// a match; a leading **/ matches at any depth.
func dockerIgnores(pattern, path string) bool {
	pattern = filepath.Clean(pattern)
	parts := strings.Split(path, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if ok, _ := filepath.Match(pattern, prefix); ok {
			return true
		}
		if rest, ok := strings.CutPrefix(pattern, "**/"); ok {
			for j := range i + 1 {
				if ok, _ := filepath.Match(rest, strings.Join(parts[j:i+1], "/")); ok {
					return true
				}
			}
		}
	}
	return false
}

// aptPackages are the packages the stage (and the stages it is FROM) install.
func aptPackages(stages []dockerStage, name string) []string {
	var out []string
	for _, s := range stages {
		if s.name != name {
			continue
		}
		for _, in := range s.instrs {
			if in.cmd != "RUN" {
				continue
			}
			for _, part := range strings.Split(in.args, "&&") {
				f := strings.Fields(part)
				if len(f) > 2 && f[0] == "apt-get" && slices.Contains(f, "install") {
					for _, w := range f[slices.Index(f, "install")+1:] {
						if !strings.HasPrefix(w, "-") {
							out = append(out, w)
						}
					}
				}
			}
		}
		out = append(out, aptPackages(stages, s.from)...)
	}
	return out
}

// TestRelease_Workflow checks the release workflow builds every platform on a runner of
// its own OS and CPU (cgo is not cross-compiled), with .ci/package and go.mod's Go,
// publishes checksums, and pushes the image the Kubernetes example names.
func TestRelease_Workflow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix struct {
					Include []map[string]string `yaml:"include"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	// GitHub-hosted runner labels and the platform they run
	runners := map[string]string{
		"ubuntu-22.04": "linux/amd64", "ubuntu-24.04": "linux/amd64", "ubuntu-latest": "linux/amd64",
		"ubuntu-22.04-arm": "linux/arm64", "ubuntu-24.04-arm": "linux/arm64",
		"macos-15-intel": "darwin/amd64", "macos-15": "darwin/arm64", "macos-14": "darwin/arm64", "macos-latest": "darwin/arm64",
	}
	bins := wf.Jobs["binaries"]
	var built []string
	for _, m := range bins.Strategy.Matrix.Include {
		p := m["goos"] + "/" + m["goarch"]
		built = append(built, p)
		if runners[m["runner"]] != p {
			t.Errorf("%s is built on %q, which runs %q", p, m["runner"], runners[m["runner"]])
		}
	}
	slices.Sort(built)
	if want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}; !slices.Equal(built, want) {
		t.Errorf("binaries for %v, want %v", built, want)
	}
	var packs, goModGo bool
	for _, s := range bins.Steps {
		packs = packs || strings.Contains(s.Run, ".ci/package dist")
		goModGo = goModGo || strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] == "go.mod"
	}
	if !packs || !goModGo {
		t.Errorf("binaries job: runs .ci/package %v, sets up go.mod's Go %v", packs, goModGo)
	}
	var sums bool
	for _, s := range wf.Jobs["release"].Steps {
		sums = sums || strings.Contains(s.Run, "> SHA256SUMS") && strings.Contains(s.Run, "sha256sum -c SHA256SUMS")
	}
	if !sums {
		t.Error("the release job does not write and check SHA256SUMS")
	}
	for _, m := range wf.Jobs["image"].Strategy.Matrix.Include {
		if runners[m["runner"]] != m["platform"] {
			t.Errorf("image %s is built on %q, which runs %q", m["platform"], m["runner"], runners[m["runner"]])
		}
	}
	k8s, err := os.ReadFile(filepath.Join(repoRoot, "examples", "sharded", "k8s-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	img := regexp.MustCompile(`image:\s*(\S+):latest`).FindSubmatch(k8s)
	if img == nil {
		t.Fatal("the Kubernetes example names no :latest image")
	}
	for _, want := range []string{"name=" + string(img[1]) + ",", "-t " + string(img[1]) + ":latest"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("release.yml lacks %q: it does not publish the image the Kubernetes example runs", want)
		}
	}
}

// TestRelease_Package runs .ci/package as a release runner does, but as a container
// build would (no git metadata: the version and commit come from VERSION and COMMIT)
// and without -trimpath (TRIMPATH=0: with it every package is compiled anew, minutes
// of CPU past go test's own cache), and checks the archive, its checksum line, the binary's version and that the
// Dockerfile's runtime stage has every library the binary links against.
func TestRelease_Package(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds qeval")
	}
	dist := t.TempDir()
	cmd := exec.Command("sh", filepath.Join(".ci", "package"), dist)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "VERSION=v0.0.0-test", "COMMIT=0123abc", "TRIMPATH=0", "GIT_DIR="+filepath.Join(dist, "no-git"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf(".ci/package: %v\n%s", err, out)
	}
	name := fmt.Sprintf("qeval_v0.0.0-test_%s_%s", runtime.GOOS, runtime.GOARCH)
	archive := filepath.Join(dist, name+".tar.gz")
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	line, err := os.ReadFile(archive + ".sha256")
	if err != nil {
		t.Fatal(err)
	}
	if want := hex.EncodeToString(sum[:]) + "  " + name + ".tar.gz\n"; string(line) != want {
		t.Errorf("%s.sha256 = %q, want %q", name, line, want)
	}
	bin := filepath.Join(t.TempDir(), "qeval")
	files := untar(t, archive, name, bin)
	if want := []string{"LICENSE", "NOTICE", "README.md", "qeval"}; !slices.Equal(files, want) {
		t.Errorf("archive holds %v, want %v", files, want)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("qeval version: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("qeval v0.0.0-test (commit 0123abc, %s %s/%s)\n", runtime.Version(), runtime.GOOS, runtime.GOARCH); string(out) != want {
		t.Errorf("qeval version = %q, want %q", out, want)
	}
	t.Run("RuntimeLibraries", func(t *testing.T) { checkRuntimeLibraries(t, bin) })
}

// untar extracts the archive's folder dir, writing its qeval to bin; it returns the
// names of the files in it.
func untar(t *testing.T, archive, dir, bin string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rest, ok := strings.CutPrefix(h.Name, dir+"/")
		if !ok {
			t.Errorf("archive entry %q outside %s/", h.Name, dir)
			continue
		}
		if rest == "" || h.Typeflag == tar.TypeDir {
			continue
		}
		names = append(names, rest)
		if rest == "qeval" {
			if h.Mode&0o111 == 0 {
				t.Errorf("qeval in the archive is not executable (mode %o)", h.Mode)
			}
			w, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(w, tr); err != nil {
				t.Fatal(err)
			}
			w.Close()
		}
	}
	slices.Sort(names)
	return names
}

// checkRuntimeLibraries maps each shared library the binary needs to its Debian
// package and checks the Dockerfile's runtime stage has it: installed by the stage,
// or libc itself (libc6, with libgcc-s1, which it depends on, is in every Debian image).
func checkRuntimeLibraries(t *testing.T, bin string) {
	if runtime.GOOS != "linux" {
		t.Skip("the image is Linux; this binary is " + runtime.GOOS)
	}
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("dpkg is not installed: the binary's libraries cannot be mapped to Debian packages")
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := f.ImportedLibraries()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	have := append([]string{"libc6", "libgcc-s1"}, aptPackages(readDockerfile(t), "runtime")...)
	for _, lib := range libs {
		out, err := exec.Command("dpkg", "-S", "*/"+lib).Output()
		if err != nil {
			t.Errorf("%s: no Debian package holds it (dpkg -S: %v)", lib, err)
			continue
		}
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		sc.Scan()
		pkg, _, _ := strings.Cut(sc.Text(), ":")
		if !slices.Contains(have, pkg) {
			t.Errorf("the binary needs %s (package %s), which the Dockerfile's runtime stage does not install (it has %v)", lib, pkg, have)
		}
	}
	if len(libs) == 0 {
		t.Error("the binary needs no shared library: is it built with cgo?")
	}
}
