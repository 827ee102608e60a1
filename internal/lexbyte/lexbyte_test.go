package lexbyte_test

import (
	"testing"

	"github.com/qeval/qeval/internal/lexbyte"
)

func TestIsWord(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		ascii := b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
		if got := lexbyte.IsASCIIWord(b); got != ascii {
			t.Errorf("IsASCIIWord(%q)=%v, want %v", b, got, ascii)
		}
		if got := lexbyte.IsWord(b); got != (ascii || b >= 0x80) {
			t.Errorf("IsWord(%q)=%v, want %v", b, got, ascii || b >= 0x80)
		}
	}
	for _, b := range []byte{'$', '@', '#', ' ', '.', '"', '`', '-', 0} {
		if lexbyte.IsWord(b) {
			t.Errorf("IsWord(%q)=true, want false", b)
		}
	}
}
