# kubectl-watchrv. The two set-up commands: `make demo` and `make test`.
SHELL      := /usr/bin/env bash
VERSION    := $(shell cat VERSION)
LDFLAGS    := -s -w -X main.version=$(VERSION)
BIN        := bin/kubectl-watchrv
GO_TEST    ?= go test
E2E_FLAGS  ?= -count=1 -timeout 40m

.PHONY: all build cluster test unit e2e demo serve lint fmt clean bench

all: build

build: ## Build the plugin into bin/
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kubectl-watchrv

cluster: ## Build (or reuse from the cache) the real kube-apiserver and etcd
	@bash test/cluster/build.sh >/dev/null

test: lint unit e2e ## Unit tests, then e2e tests against the real API server

unit:
	$(GO_TEST) -count=1 ./...

e2e: cluster
	WATCHRV_CLUSTER_BIN=$$(bash test/cluster/build.sh) $(GO_TEST) -tags e2e $(E2E_FLAGS) ./test/e2e/...

demo: build cluster ## Start the local real API server, make history, run the plugin on it
	go run ./test/e2e/demo --plugin $(BIN)

serve: build cluster ## Start the local real API server with the demo history and keep it running
	go run ./test/e2e/demo --plugin $(BIN) --serve

bench: ## Measure against kubectl on the local real API server; writes docs/performance.md
	bash bench/compare.sh -w

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	go vet -tags e2e ./test/...
	cd test/cluster && go vet ./...

clean:
	rm -rf bin dist
