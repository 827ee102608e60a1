package lines_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/qeval/qeval/internal/lines"
)

func TestScanner(t *testing.T) {
	long := strings.Repeat("y", 20<<20) // past bufio.Scanner's usual caps
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"Empty", "", nil},
		{"NoFinalNewline", "a\nb", []string{"a", "b"}},
		{"FinalNewline", "a\nb\n", []string{"a", "b"}},
		{"CRLF", "a\r\n\r\nb\r\n", []string{"a", "", "b"}},
		{"LongLine", "a\n" + long + "\nc\n", []string{"a", long, "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := lines.New(strings.NewReader(tc.in))
			var got []string
			for sc.Scan() {
				got = append(got, sc.Text())
			}
			if sc.Err() != nil || len(got) != len(tc.want) {
				t.Fatalf("got %d lines (%v), want %d", len(got), sc.Err(), len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("line %d = %.20q, want %.20q", i+1, got[i], tc.want[i])
				}
			}
		})
	}
}

// NewMax keeps a line up to its bound and reads past the rest: the lines after a long
// one are read as they are, and a line of 64 MB costs what its bound does.
func TestScanner_Max(t *testing.T) {
	huge := strings.Repeat("z", 64<<20) + "\nafter\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sc := lines.NewMax(strings.NewReader(huge), 1<<20)
	for sc.Scan() {
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("a 64 MB line under a 1 MB bound allocated %d MB", alloc>>20)
	}

	long := strings.Repeat("y", 20<<20)
	in := "abcd\r\n" + long + "\nexact\r\n12345678\n" + long + "\nlast"
	sc = lines.NewMax(strings.NewReader(in), 5)
	type line struct {
		text    string
		tooLong bool
	}
	var got []line
	for sc.Scan() {
		got = append(got, line{sc.Text(), sc.TooLong()})
	}
	want := []line{{"abcd", false}, {"yyyyy", true}, {"exact", false}, {"12345", true}, {"yyyyy", true}, {"last", false}}
	if sc.Err() != nil || len(got) != len(want) {
		t.Fatalf("got %v (%v), want %v", got, sc.Err(), want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
}
