// Package all links every in-process target into the binary, and
// registers the external ones (workers/).
package all

import (
	_ "github.com/litebench/litebench/internal/target/external"
	_ "github.com/litebench/litebench/internal/target/mariadb"
	_ "github.com/litebench/litebench/internal/target/mattn"
	_ "github.com/litebench/litebench/internal/target/modernc"
	_ "github.com/litebench/litebench/internal/target/ncruces"
	_ "github.com/litebench/litebench/internal/target/postgres"
	_ "github.com/litebench/litebench/internal/target/zombie"
)
