// Package all links every in-process target into the binary, and
// registers the external ones (workers/).
package all

import (
	_ "litebench/internal/target/external"
	_ "litebench/internal/target/mattn"
	_ "litebench/internal/target/modernc"
	_ "litebench/internal/target/ncruces"
	_ "litebench/internal/target/zombie"
)
