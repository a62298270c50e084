module github.com/litebench/litebench/workers/go-dqlite

go 1.26.8

require (
	github.com/canonical/go-dqlite v1.11.5
	github.com/litebench/litebench v0.0.0-00010101000000-000000000000
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/Rican7/retry v0.3.0 // indirect
	github.com/ghodss/yaml v1.0.0 // indirect
	github.com/google/pprof v0.0.0-20260802141513-ef3492d7dac3 // indirect
	github.com/google/renameio v1.0.1 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	github.com/molecule-man/go-brrr v1.3.0 // indirect
	github.com/pelletier/go-toml/v2 v2.4.3 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/valyala/fasthttp v1.77.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)

replace github.com/litebench/litebench => ../..

// go-dqlite is not served by the Go module proxy: it comes from Debian's
// golang-github-canonical-go-dqlite-dev package.
replace github.com/canonical/go-dqlite => /usr/share/gocode/src/github.com/canonical/go-dqlite
