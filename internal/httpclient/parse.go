package httpclient

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// parser reads one response from the bytes it is fed, as they arrive, in
// whatever pieces: the client that waits for each read and the event loop
// that reads whatever is ready use the same one. It keeps nothing of the
// body but its length.
type parser struct {
	state  int
	status int
	close  bool  // the connection ends after this response
	left   int64 // bytes left of the body or of the current chunk
	n      int64 // body bytes so far
}

const (
	stHead      = iota // up to the blank line
	stBody             // left bytes of a Content-Length body
	stChunkSize        // a chunk's size line
	stChunkData        // left bytes of a chunk
	stChunkCRLF        // the CRLF after a chunk's data
	stTrailer          // trailer lines, up to an empty one
	stEOF              // a body that ends with the connection
	stDone
)

// errHeaderSize is the error of a response whose header (or a chunk-size
// line) does not fit in a connection's buffer.
var errHeaderSize = errors.New("response header larger than 16 KiB")

// reset readies p for the next response.
func (p *parser) reset() { *p = parser{} }

// feed consumes what it can of b and reports how much it used and whether
// the response is complete. It uses all of b unless the response ends
// within it or a line is incomplete (then the caller keeps b[used:] and
// feeds it again with more bytes after it).
func (p *parser) feed(b []byte) (used int, done bool, err error) {
	for {
		rest := b[used:]
		switch p.state {
		case stDone:
			return used, true, nil
		case stHead:
			end := bytes.Index(rest, crlf2)
			if end < 0 {
				return used, false, nil
			}
			var h header
			if err := h.parse(rest[:end+2]); err != nil {
				return used, false, err
			}
			used += end + 4
			p.status, p.close = h.status, h.close
			switch {
			case h.chunked:
				p.state = stChunkSize
			case h.length >= 0:
				p.state, p.left = stBody, h.length
			case h.status == 204 || h.status == 304 || h.status < 200:
				p.state = stDone
			default:
				p.state, p.close = stEOF, true
			}
		case stBody, stChunkData:
			k := min(int64(len(rest)), p.left)
			used += int(k)
			p.left -= k
			p.n += k
			if p.left > 0 {
				return used, false, nil
			}
			if p.state == stBody {
				p.state = stDone
			} else {
				p.state = stChunkCRLF
			}
		case stChunkCRLF:
			if len(rest) < 2 {
				return used, false, nil
			}
			if rest[0] != '\r' || rest[1] != '\n' {
				return used, false, errors.New("chunk not followed by CRLF")
			}
			used += 2
			p.state = stChunkSize
		case stChunkSize, stTrailer:
			i := bytes.Index(rest, crlf2[:2])
			if i < 0 {
				return used, false, nil
			}
			l := rest[:i]
			used += i + 2
			if p.state == stTrailer {
				if len(l) == 0 {
					p.state = stDone
				}
				continue
			}
			if j := bytes.IndexByte(l, ';'); j >= 0 {
				l = l[:j]
			}
			size, ok := parseUint(bytes.TrimSpace(l), 16)
			if !ok {
				return used, false, fmt.Errorf("bad chunk size %q", l)
			}
			if size == 0 {
				p.state = stTrailer
			} else {
				p.state, p.left = stChunkData, size
			}
		case stEOF:
			p.n += int64(len(rest))
			return len(b), false, nil
		}
	}
}

// eof is the connection's end: it completes a body that ends with the
// connection, and is an error anywhere else (io.EOF before any byte of
// the response, else io.ErrUnexpectedEOF).
func (p *parser) eof(got bool) error {
	switch {
	case p.state == stEOF:
		p.state = stDone
		return nil
	case p.state == stHead && !got:
		return io.EOF
	default:
		return io.ErrUnexpectedEOF
	}
}

var crlf2 = []byte("\r\n\r\n")

// header is what the client reads of a response header.
type header struct {
	status  int
	length  int64 // -1 when absent
	chunked bool
	close   bool
}

// parse reads the status line and the headers that frame the body.
func (h *header) parse(b []byte) error {
	h.length = -1
	i := bytes.Index(b, crlf2[:2])
	sl := b[:i]
	if len(sl) < 12 || !bytes.HasPrefix(sl, []byte("HTTP/1.")) || sl[8] != ' ' {
		return fmt.Errorf("bad status line %q", sl)
	}
	st, ok := parseUint(sl[9:12], 10)
	if !ok || st < 100 || (len(sl) > 12 && sl[12] != ' ') {
		return fmt.Errorf("bad status line %q", sl)
	}
	h.status = int(st)
	h.close = sl[7] == '0' // HTTP/1.0 closes unless it says keep-alive
	for b = b[i+2:]; len(b) > 0; {
		j := bytes.Index(b, crlf2[:2])
		l := b[:j]
		b = b[j+2:]
		k := bytes.IndexByte(l, ':')
		if k < 0 {
			return fmt.Errorf("bad header line %q", l)
		}
		name, v := l[:k], bytes.TrimSpace(l[k+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, ok := parseUint(v, 10)
			if !ok {
				return fmt.Errorf("bad Content-Length %q", v)
			}
			h.length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			h.chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(v, []byte("close")) {
				h.close = true
			} else if bytes.EqualFold(v, []byte("keep-alive")) {
				h.close = false
			}
		}
	}
	return nil
}

// parseUint parses a number in base 10 or 16 without allocating.
func parseUint(b []byte, base int64) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, ch := range b {
		var d int64
		switch {
		case '0' <= ch && ch <= '9':
			d = int64(ch - '0')
		case base == 16 && 'a' <= ch && ch <= 'f':
			d = int64(ch-'a') + 10
		case base == 16 && 'A' <= ch && ch <= 'F':
			d = int64(ch-'A') + 10
		default:
			return 0, false
		}
		n = n*base + d
	}
	return n, true
}
