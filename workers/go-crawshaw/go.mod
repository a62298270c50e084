module github.com/litebench/litebench/workers/go-crawshaw

go 1.26.8

require github.com/litebench/litebench v0.0.0-00010101000000-000000000000

require github.com/pelletier/go-toml/v2 v2.4.3 // indirect

require (
	crawshaw.io/sqlite v0.3.2
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/litebench/litebench => ../..
