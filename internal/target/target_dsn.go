package target

import "strings"

// WithParam appends a query parameter to a URI filename.
func WithParam(uri, kv string) string {
	if strings.Contains(uri, "?") {
		return uri + "&" + kv
	}
	return uri + "?" + kv
}

// TxLockDSN is the URI plus _txlock=immediate when asked for, which mattn,
// modernc and ncruces' database/sql drivers all understand.
func TxLockDSN(o Options) string {
	u := o.URI()
	if o.TxImmediate {
		u = WithParam(u, "_txlock=immediate")
	}
	return u
}
