module github.com/litebench/litebench/workers/go-sqlite-lite

go 1.26.8

require (
	github.com/bvinc/go-sqlite-lite v0.6.1
	github.com/litebench/litebench v0.0.0-00010101000000-000000000000
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/google/pprof v0.0.0-20260802141513-ef3492d7dac3 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/molecule-man/go-brrr v1.3.0 // indirect
	github.com/pelletier/go-toml/v2 v2.4.3 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/valyala/fasthttp v1.77.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace (
	github.com/bvinc/go-sqlite-lite => ./third_party/go-sqlite-lite
	github.com/litebench/litebench => ../..
)
