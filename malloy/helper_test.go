package malloy_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval"
	"github.com/qeval/qeval/malloy"
	"github.com/qeval/qeval/mock"
)

// fakeNode is a stand-in for node that speaks the bridge's protocol as the file
// "mode" in its folder says: ok answers every compile, die ends the process on a
// compile, hang never answers one. The real compiler is not needed to test how qeval
// treats a helper that dies or hangs.
const fakeNode = `#!/bin/sh
case "$1" in --version) echo v20.99.0; exit 0;; esac
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/^{"id":\([0-9]*\).*/\1/p')
  case "$line" in
  *'"op":"hello"'*) echo "{\"id\":$id,\"ok\":true,\"version\":\"` + malloy.CompilerVersion + `\"}" ;;
  *'"op":"load"'*) echo "{\"id\":$id,\"ok\":true}" ;;
  *'"op":"compile"'*)
    case "$(cat "$HOME/mode")" in
    die) echo "the compiler fell over" >&2; exit 3 ;;
    hang) sleep 1000 ;;
    netns) echo "{\"id\":$id,\"sql\":\"$(readlink /proc/self/ns/net)\",\"shape\":{}}" ;;
    *) echo "{\"id\":$id,\"sql\":\"SELECT 1\",\"shape\":{\"dialect\":\"malloy\",\"malloy\":{\"source\":\"s\"}}}" ;;
    esac ;;
  esac
done
`

// fake returns a compiler that runs fakeNode, and a function that sets its mode.
func fake(t *testing.T) (*malloy.Compiler, func(string)) {
	t.Helper()
	dir := t.TempDir()
	node := filepath.Join(dir, "node")
	if err := os.WriteFile(node, []byte(fakeNode), 0o755); err != nil {
		t.Fatal(err)
	}
	install := filepath.Join(dir, "install")
	os.MkdirAll(install, 0o755)
	os.WriteFile(filepath.Join(install, ".installed"), nil, 0o644)
	mode := func(m string) {
		if err := os.WriteFile(filepath.Join(install, "mode"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mode("ok")
	c := &malloy.Compiler{Node: node, Dir: install}
	t.Cleanup(func() { c.Close() })
	return c, mode
}

// fakeModel is a model file and a DuckDB-dialect source for the fake helper.
func fakeModel(t *testing.T) ([]string, *qeval.Source, qeval.Executor) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "m.malloy")
	os.WriteFile(f, []byte("source: s is duckdb.table('t')\n"), 0o644)
	return []string{f}, &qeval.Source{Name: "db", Display: "db", Engine: "duckdb", Dialect: "duckdb", Files: []string{"db"}}, &mock.Executor{}
}

func TestHelper_DiesRestartedOnceThenGone(t *testing.T) {
	c, mode := fake(t)
	files, src, ex := fakeModel(t)
	ctx := context.Background()
	if _, err := c.Compile(ctx, files, src, ex, "run: s -> {}"); err != nil {
		t.Fatalf("first Compile: %v", err)
	}
	mode("die")
	_, err := c.Compile(ctx, files, src, ex, "run: s -> {}")
	if qeval.ErrorCode(err) != qeval.CodeUnavailable || !strings.Contains(qeval.ErrorMessage(err), "died while compiling this query") || !strings.Contains(qeval.ErrorMessage(err), "the compiler fell over") {
		t.Fatalf("Compile on a dying helper = %v, want unavailable with its last words", err)
	}
	mode("ok")
	if _, err := c.Compile(ctx, files, src, ex, "run: s -> {}"); err != nil {
		t.Fatalf("Compile after one death = %v, want the helper started again", err)
	}
	mode("die")
	if _, err := c.Compile(ctx, files, src, ex, "run: s -> {}"); !strings.Contains(qeval.ErrorMessage(err), "died twice") {
		t.Fatalf("Compile on the second death = %v, want the compiler gone", err)
	}
	mode("ok")
	_, err = c.Compile(ctx, files, src, ex, "run: s -> {}")
	if qeval.ErrorCode(err) != qeval.CodeUnavailable || !strings.Contains(qeval.ErrorMessage(err), "died twice") {
		t.Fatalf("Compile after two deaths = %v, want every later one unavailable", err)
	}
}

func TestHelper_HangEndsAtTheDeadline(t *testing.T) {
	c, mode := fake(t)
	files, src, ex := fakeModel(t)
	mode("hang")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Compile(ctx, files, src, ex, "run: s -> {}")
	if qeval.ErrorCode(err) != qeval.CodeTimeout {
		t.Fatalf("Compile on a hung helper = %v, want a timeout", err)
	}
	// the hung helper was killed; the next query gets a new one, and a hang is not a
	// death: two more deaths are needed to lose the compiler
	mode("ok")
	if _, err := c.Compile(context.Background(), files, src, ex, "run: s -> {}"); err != nil {
		t.Fatalf("Compile after a hang = %v, want a new helper", err)
	}
	mode("die")
	c.Compile(context.Background(), files, src, ex, "run: s -> {}")
	mode("ok")
	if _, err := c.Compile(context.Background(), files, src, ex, "run: s -> {}"); err != nil {
		t.Fatalf("Compile after a hang and one death = %v, want the helper started again", err)
	}
}

func TestCompile_NoNode(t *testing.T) {
	files, src, ex := fakeModel(t)
	c := &malloy.Compiler{Node: filepath.Join(t.TempDir(), "node")}
	defer c.Close()
	_, err := c.Compile(context.Background(), files, src, ex, "run: s -> {}")
	if qeval.ErrorCode(err) != qeval.CodeUnavailable || !strings.Contains(qeval.ErrorHint(err), "apt-get install nodejs npm") {
		t.Fatalf("Compile without node = %v (hint %q), want unavailable saying what to install", err, qeval.ErrorHint(err))
	}
}

func TestCompile_SQLiteConnection(t *testing.T) {
	files, _, ex := fakeModel(t)
	c := &malloy.Compiler{Node: filepath.Join(t.TempDir(), "node")}
	defer c.Close()
	src := &qeval.Source{Name: "x.sqlite", Display: "x.sqlite", Engine: "sqlite", Dialect: "sqlite", Files: []string{"x.sqlite"}}
	_, err := c.Compile(context.Background(), files, src, ex, "run: s -> {}")
	if qeval.ErrorCode(err) != qeval.CodeUnsupported || !strings.Contains(qeval.ErrorHint(err), "mirror:duckdb") {
		t.Fatalf("Compile for SQLite = %v, want unsupported pointing at mirror:duckdb", err)
	}
}

// TestHelper_OwnNetworkNamespace: on Linux, as root (CI, this machine), the helper
// runs in a network namespace of its own, so it reaches no address at all.
func TestHelper_OwnNetworkNamespace(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("the helper gets a network namespace of its own on Linux as root (elsewhere, when user namespaces allow it); this is not that")
	}
	c, mode := fake(t)
	files, src, ex := fakeModel(t)
	mode("netns")
	cq, err := c.Compile(context.Background(), files, src, ex, "run: s -> {}")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	if cq.SQL == "" || cq.SQL == ours {
		t.Fatalf("helper's network namespace %q, ours %q: want its own", cq.SQL, ours)
	}
}

// TestBridge_NoNetwork runs the bridge's network lock in real Node and tries to reach
// a listener on this machine: every way fails.
func TestBridge_NoNetwork(t *testing.T) {
	needNode(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	sandbox, err := os.ReadFile(filepath.Join("node", "sandbox.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "sandbox.mjs"), sandbox, 0o644)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	script := `import './sandbox.mjs';
import net from 'node:net';
import http from 'node:http';
const out = [];
const tryIt = async (name, f) => { try { await f(); out.push(name + ': reached'); } catch (e) { out.push(name + ': ' + e.code); } };
await tryIt('net', () => new Promise((ok, bad) => { const s = net.connect(` + strconv.Itoa(port) + `, '127.0.0.1', ok); s.on('error', bad); }));
await tryIt('http', () => new Promise((ok, bad) => { const r = http.get('http://127.0.0.1:` + strconv.Itoa(port) + `/', ok); r.on('error', bad); }));
await tryIt('fetch', () => fetch('http://127.0.0.1:` + strconv.Itoa(port) + `/'));
process.stderr.write(out.join('\n'));
process.exit(0);
`
	os.WriteFile(filepath.Join(dir, "try.mjs"), []byte(script), 0o644)
	outb, err := exec.Command("node", filepath.Join(dir, "try.mjs")).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, outb)
	}
	for _, want := range []string{"net: ERR_QEVAL_NO_NETWORK", "http: ERR_QEVAL_NO_NETWORK", "fetch: ERR_QEVAL_NO_NETWORK"} {
		if !strings.Contains(string(outb), want) {
			t.Errorf("got\n%s\nwant %q", outb, want)
		}
	}
}
