# litebench. 'go install ./cmd/litebench' (or MODULE/cmd/litebench@VERSION)
# builds every in-process target; these rules only name the binary and stamp
# the commit it was built from.
BUILD_FLAGS = -buildvcs=auto

.PHONY: build install test bench selfcheck workers release-snapshot
build:
	go build $(BUILD_FLAGS) -o litebench ./cmd/litebench

install:
	go install $(BUILD_FLAGS) ./cmd/litebench

test:
	./scripts/test

# The workers of other languages (workers/*): Python's virtual environment,
# cargo, Maven, npm, and the Go drivers that cannot link with mattn.
workers:
	./scripts/workers build

bench:
	go test -run '^$$' -bench . -benchmem ./internal/metrics ./internal/workload ./internal/loadgen ./internal/spec

selfcheck: build
	./litebench selfcheck --rows 1000000 --repeat 5

# Release archives into dist/, offline: GoReleaser (pinned in
# tools/release/go.mod) builds linux amd64 and arm64 with cgo (arm64 needs
# Debian's gcc-aarch64-linux-gnu), macOS and Windows without, checksums
# and a .deb.
release-snapshot:
	cd tools/release && go build -o ../../bin/goreleaser github.com/goreleaser/goreleaser/v2
	./bin/goreleaser release --snapshot --clean
