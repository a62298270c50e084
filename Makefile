# litebench. 'go run ./cmd/litebench' and 'go install ./cmd/litebench' build
# every target but ncruces' database/sql driver; 'make build' adds it (its
# driver and mattn's both register "sqlite3", so it needs an -X rename).
NCRUCES_FLAGS = -tags ncrucessql -ldflags '-X github.com/ncruces/go-sqlite3/driver.driverName=litebench-ncruces'

.PHONY: build install test bench selfcheck workers
build:
	go build $(NCRUCES_FLAGS) -o litebench ./cmd/litebench

install:
	go install $(NCRUCES_FLAGS) ./cmd/litebench

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
