package histcodec

import (
	"errors"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestRoundTrip(t *testing.T) {
	h := hdr.New(1, 600e9, 3)
	for i := int64(1); i < 5000; i += 7 {
		h.RecordValue(i * 1000) //nolint:errcheck
	}
	s := Encode(h)
	if !strings.HasPrefix(s, "HISTF") {
		t.Errorf("not the V2 compressed base64 form: %.20s", s)
	}
	got, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equals(h) {
		t.Error("histogram changed in round trip")
	}
}

func TestEmpty(t *testing.T) {
	if s := Encode(hdr.New(1, 1000, 3)); s != "" {
		t.Errorf("empty histogram encoded as %q", s)
	}
	if s := Encode(nil); s != "" {
		t.Errorf("nil histogram encoded as %q", s)
	}
	if _, err := Decode(""); !errors.Is(err, ErrEmpty) {
		t.Errorf("Decode(\"\"): %v", err)
	}
	if _, err := Decode("HISTFnot base64!"); err == nil {
		t.Error("garbage decoded")
	}
}
