// Package all links every in-process target into the binary.
package all

import (
	_ "litebench/internal/target/mattn"
	_ "litebench/internal/target/modernc"
	_ "litebench/internal/target/ncruces"
	_ "litebench/internal/target/zombie"
)
