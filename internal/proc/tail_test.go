package proc

import (
	"strings"
	"testing"
)

func TestTailKeepsTheLastBytes(t *testing.T) {
	tl := NewTail(8)
	for _, s := range []string{"abc", "defgh", "ijklmnop", "qr"} {
		if n, err := tl.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
		}
	}
	if got, want := tl.String(), "klmnopqr"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	tl = NewTail(4 << 10)
	tl.Write([]byte(strings.Repeat("x", 5000)))
	tl.Write([]byte("end"))
	if got := tl.String(); len(got) != 4<<10 || !strings.HasSuffix(got, "xend") {
		t.Errorf("String() has %d bytes ending %q; want 4096 ending \"xend\"", len(got), got[len(got)-4:])
	}
}
