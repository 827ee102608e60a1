package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkStartup is the start-up of a qeval process: `qeval version` run as a
// subprocess of a binary that go build linked (as go run does), alternated with a Go
// program that prints one line, the language's floor on the same machine at the same
// moment. It reports the median wall time of each (version-ms, hello-ms) and their
// ratio (x-hello); ns/op is one of each. Building both takes a minute before the clock
// starts.
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	qeval, hello := filepath.Join(dir, "qeval"), filepath.Join(dir, "hello")
	src := filepath.Join(dir, "hello.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range [][]string{{"-o", qeval, "."}, {"-o", hello, src}} {
		if out, err := exec.Command("go", append([]string{"build"}, c...)...).CombinedOutput(); err != nil {
			b.Fatalf("go build %v: %v\n%s", c, err, out)
		}
	}
	var q, h []float64
	for b.Loop() {
		h = append(h, wallMS(b, hello))
		q = append(q, wallMS(b, qeval, "version"))
	}
	b.ReportMetric(median(q), "version-ms")
	b.ReportMetric(median(h), "hello-ms")
	b.ReportMetric(median(q)/median(h), "x-hello")
}

// wallMS runs name with args to its end and returns the wall time in milliseconds.
func wallMS(b *testing.B, name string, args ...string) float64 {
	b.Helper()
	start := time.Now()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return float64(time.Since(start).Microseconds()) / 1000
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
