// Package histcodec is the one encoding of latency histograms litebench
// writes and reads: HdrHistogram's V2 compressed form, in base64. Results
// carry it, reports decode it, and workers in other processes or languages
// can produce it with any HdrHistogram library.
package histcodec

import (
	"errors"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// ErrEmpty is returned for the empty string, which Encode writes for a
// histogram with no values.
var ErrEmpty = errors.New("histcodec: empty histogram")

// Encode returns h in HdrHistogram's V2 compressed, base64 form, or "" when
// h is nil or holds no value.
func Encode(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// Decode reads a histogram written by Encode (or by any HdrHistogram
// library in the same form). It returns ErrEmpty for "".
func Decode(s string) (*hdr.Histogram, error) {
	if s == "" {
		return nil, ErrEmpty
	}
	return hdr.Decode([]byte(s))
}
