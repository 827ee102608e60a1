package lines_test

import (
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
