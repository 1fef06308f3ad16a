# platbench: the README's two commands are `make run` and `make test`.
GO       ?= go
BIN      := bin/platbench
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/platbench/platbench/cmd/platbench/cli.Version=$(VERSION)

.PHONY: build run test unit bench vet lint fuzz servers-start servers-stop

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/platbench

# A real benchmark of the embedded store with the default workload (YCSB A).
run: build
	./$(BIN) run

# Every test: unit tests and integration tests against real servers that
# scripts/test.sh installs and starts on 127.0.0.1.
test:
	scripts/test.sh

# Unit tests only (no servers).
unit:
	$(GO) test ./...

vet:
	$(GO) vet ./...

# Hygiene gates (gofmt, go mod tidy -diff, vet, staticcheck, deadcode, .gitignore guard); make test runs them first.
lint:
	scripts/lint.sh

# Every Go fuzz test briefly (FUZZTIME=5s each); make test runs it after the tests.
fuzz:
	scripts/fuzz.sh

# Runner and recorder overhead, allocations and the embedded store (see docs/benchmarks.md).
bench: build
	scripts/bench.sh

servers-start:
	scripts/servers.sh start

servers-stop:
	scripts/servers.sh stop

# The open loop's own cost on null, one core: CPU per op and schedule lag at fixed rates beside
# the closed loop, and the highest rate one core paces with lag p99 <= 100 µs (docs/benchmarks.md).
.PHONY: bench-pacing
bench-pacing: build
	scripts/bench-pacing.sh

# A second of run: the CPU a second costs platbench, whole and by part (issue 47, docs/benchmarks.md).
.PHONY: bench-seconds
bench-seconds: build
	scripts/bench-seconds.sh

# Soak: RSS at 1 min vs 30 min on null at 100k op/s with ten op types and six node_exporter
# endpoints, the result's size per hour, report time on it and on a synthetic day (issue 34;
# docs/benchmarks.md). Part of make bench; SOAK_DURATION, SOAK_RATE, SOAK_NODES set it.
.PHONY: bench-soak
bench-soak: build
	PLATBENCH_BIN=$(BIN) scripts/bench-soak.sh

# Side-by-side benchmarks against peers; each block is owned by its target.

# CQL: platbench vs latte on one Cassandra node, clients pinned to one core (docs/benchmarks-cql.md).
.PHONY: bench-cql
bench-cql: build
	scripts/bench-cql.sh

# Kafka: platbench vs ProducerPerformance on one KRaft broker, clients pinned to one core (docs/benchmarks-kafka.md).
.PHONY: bench-kafka
bench-kafka: build
	scripts/bench-kafka.sh

# Disk: platbench probe disk vs fio on the same file and settings (tmpfs by default: the tools' own cost),
# IOTune set at 1x32 and 4x128 plus seed 004's job; ratios of throughput, CPU per I/O, latency (docs/benchmarks-disk.md).
.PHONY: bench-disk
bench-disk: build
	PLATBENCH_BIN=$(BIN) scripts/bench-disk.sh

# Redis: redis-benchmark vs platbench on one Redis, same value size, connections and pipelining,
# clients pinned to one core and the server to another (docs/benchmarks-redis.md).
.PHONY: bench-redis
bench-redis: build
	scripts/bench-redis.sh

# Overhead: platbench's own cost per op on the null target, one worker: race check, ns/op and
# callgrind instructions/op of the generator, runner loop, clock and recorder (docs/benchmarks-overhead.md).
.PHONY: bench-overhead
bench-overhead:
	scripts/bench-overhead.sh

# A minimal container image of the static binary (non-root, CA certificates), tagged with
# `platbench version`, built with crane and no container engine (docs/sweeps-suites-events.md).
.PHONY: image
image:
	scripts/image.sh
