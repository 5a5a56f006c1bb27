# kubectl-watchrv. The two set-up commands: `make demo` and `make test`.
SHELL      := /usr/bin/env bash
VERSION    := $(shell cat VERSION)
LDFLAGS    := -s -w -X main.version=$(VERSION)
BIN        := bin/kubectl-watchrv
DEMO_BIN   := bin/watchrv-demo
GO_TEST    ?= go test
# -p 4, -parallel 4: most e2e time is waiting on real servers (timeouts,
# windows), not CPU. -vet=off: make lint vets every package already.
E2E_FLAGS  ?= -count=1 -timeout 40m -p 4 -parallel 4 -vet=off
# make test and test-long run the e2e packages the same way (four packages
# at a time, -parallel 4, -count=1, 40 minutes) from test binaries kept in
# bin/e2e/tests, which go does not link again while they are up to date.
E2E_RUN    := hack/e2e-run.sh
# The e2e packages of make test, the longest first, so that four at a time
# end together. E2E_LONG_PKGS are the ones whose time goes into waiting out
# real timeouts and restarts (a hung server's 45 s health check, informers
# outliving a watch cache window, make serve killed three ways; top on
# every cell of the matrix and across a restart): make
# test-long runs them, and CI (.ci/run) runs both. A package in neither
# list is caught by e2e-pkgs-check (part of make unit); test/e2e/krew runs
# in make release-check (every platform, this one included).
E2E_PKGS      := ./test/e2e/matrix ./test/e2e/proof ./test/e2e/security ./test/e2e/probe ./test/e2e/watch ./test/e2e/top \
                 ./test/e2e/ha ./test/e2e/list ./test/e2e/streaming ./test/e2e/clients ./test/e2e/aggregated ./test/e2e/framework
E2E_LONG_PKGS := ./test/e2e/informerlog ./test/e2e/faults ./test/e2e/demo ./test/e2e/topcells ./test/e2e/bounds ./test/e2e/explain ./test/e2e/docs
# ... and these tests of make test's packages, each of which starts (or
# restarts) an API server of its own beside the package's shared one:
# make test skips them, make test-long runs them. make test keeps every
# package's tests on its shared server and the matrix's cells; the cost of
# a server start on 2 cores (10 to 25 s) is what keeps it under 5 minutes.
# e2e-long-tests-check fails when a test of these packages starts a server
# of its own and is not named here. One more is here for the time it
# waits alone: probe --all over a live and a dead server (14 s), and a
# probe of a server that never answers (4 s).
E2E_LONG_TEST_PKGS := ./test/e2e/watch ./test/e2e/probe ./test/e2e/ha ./test/e2e/clients ./test/e2e/list ./test/e2e/top
E2E_LONG_TEST_NAMES := TestCaptureWatchStreams \
                       TestWatchStreamingListFromTheFutureIsTooLarge \
                       TestWatchFollowFirstStallLineNamesWhoServesTheWatch \
                       TestWatchExpiredAfterWatchCacheRestart \
                       TestWatchFollowSurvivesRestartAndReportsTheGap \
                       TestWatchExpiredFromCompactedEtcdWithoutWatchCache \
                       TestWatchFromTheFutureOnEachStorage \
                       TestWatchFollowNoticesAServerBehindTheResumePoint \
                       TestProbeWatchCacheAfterRestart \
                       TestProbeMetricsAfterEvictionBeforeGrowth \
                       TestProbeCompactedAtAModification \
                       TestProbeEtcdCompacted \
                       TestProbeHonorsAPFRetryAfter \
                       TestProbeIntervalDepthFromObjectTimestamps \
                       TestProbeIntervalDepthIsABoundWhenNoObjectIsAtTheOldestRV \
                       TestServersNoWatchCacheIsNotAFollowingCache \
                       TestClientsHostileAuditLogAndCacheOff \
                       TestClientsSnapshotReadsAreNotKnown \
                       TestClientsReadsTheLogAsTheServerMeantIt \
                       TestListContinueExpiredRestartsOnce \
                       TestListExactAtACompactedRVSaysExpiredOnce \
                       TestListExactAtACompactedRVFromTheCachesSnapshot \
                       TestServersSuggestionsPasteWithEndpoints \
                       TestTopCacheOff \
                       TestProbeAllServersDialsARefusingServerOnce \
                       TestProbeServersAsksASilentServerOnce \
                       TestProbeSlowStorage410IsNeverNothingExpired \
                       TestProbeSilentStartOnAServerThatCompactedItsStorage \
                       TestClientsWatchStartModes \
                       TestClientsRefusedReadsAreNotServed \
                       TestProbeCompactedAboveTheCurrentRVMidSearch \
                       TestServerFactsAreOfTheServerAtTheAddress \
                       TestAnExpiredContinueTokenIsNoListAndIsCounted \
                       TestProbeIntervalRoundsLongerThanTheInterval
empty :=
space := $(empty) $(empty)
E2E_LONG_TESTS := $(subst $(space),|,$(strip $(E2E_LONG_TEST_NAMES)))
# The e2e packages run the plugin and the informer program built once here
# (each test process would otherwise build and link its own). GOGC=300:
# servers and tests are short-lived and memory is plenty; their start-up
# spends less on garbage collection.
E2E_BIN    := $(CURDIR)/bin/e2e
E2E_ENV    = WATCHRV_CLUSTER_BIN=$$(bash test/cluster/build.sh) WATCHRV_MATRIX_BIN="$$(bash test/cluster/build-matrix.sh)" \
             WATCHRV_PLUGIN_BIN=$(E2E_BIN)/kubectl-watchrv WATCHRV_INFORMER_BIN=$(E2E_BIN)/informer GOGC=300

.PHONY: all build demo-bin cluster matrix test test-long unit e2e e2e-bin demo serve lint fmt clean bench oracle servers-doc

all: build

build: ## Build the plugin into bin/
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kubectl-watchrv

cluster: ## Build (or reuse from the cache) the real kube-apiserver and etcd
	@bash test/cluster/build.sh >/dev/null

# lint, unit and e2e run at once: the e2e tests spend most of their time
# waiting on real servers (timeouts, windows, sleeps of credential plugins),
# the compile and unit runs of lint and unit fill that time. Each target's
# output is printed whole when it ends (--output-sync).
test: ## Lint, unit tests and the e2e tests against real API servers (the matrix included), at once
	@$(MAKE) --no-print-directory -j3 --output-sync=target lint unit e2e

# The unit tests use go's test cache: a package is run again when its
# code, its dependencies, or a file or environment variable it read
# changed (UNIT_FLAGS=-count=1 runs every one). The e2e tests always run.
UNIT_FLAGS ?=
unit:
	$(GO_TEST) $(UNIT_FLAGS) ./...

# The server matrix (issue 18): kube-apiserver v1.30, v1.33, v1.35, v1.36 beside
# v1.37, and kine; each binary is built once into the same cache as cluster's.
matrix: cluster ## Build (or reuse from the cache) every server of the matrix (test/e2e/matrix)
	@bash test/cluster/build-matrix.sh >/dev/null

e2e: cluster matrix e2e-bin
	$(E2E_ENV) $(E2E_RUN) -skip '^($(E2E_LONG_TESTS))$$' $(E2E_PKGS)

test-long: cluster matrix e2e-bin ## The e2e tests that wait out real timeouts and restarts (CI runs them after make test)
	$(E2E_ENV) $(E2E_RUN) $(E2E_LONG_PKGS)
	$(E2E_ENV) $(E2E_RUN) -run '^($(E2E_LONG_TESTS))$$' $(E2E_LONG_TEST_PKGS)

# The version string is framework.PluginVersion's: the tests match it in
# user agents.
e2e-bin:
	CGO_ENABLED=0 go build -o $(E2E_BIN)/kubectl-watchrv -ldflags "-X main.version=v0.0.0-e2e" ./cmd/kubectl-watchrv
	go build -o $(E2E_BIN)/informer ./test/e2e/informer

# The oracle of the server matrix with many seeds per cell (make test runs
# one): each cell writes SEEDS logged histories, one after the other, and
# checks every number the plugin prints on each. The cells run in parallel.
SEEDS ?= 20
oracle: cluster matrix ## The matrix oracle with SEEDS seeds per cell (default 20; WATCHRV_ORACLE_SEED=N replays one)
	set -o pipefail; WATCHRV_CLUSTER_BIN=$$(bash test/cluster/build.sh) WATCHRV_MATRIX_BIN="$$(bash test/cluster/build-matrix.sh)" WATCHRV_ORACLE_SEEDS=$(SEEDS) \
	  $(GO_TEST) -v -tags e2e -count=1 -timeout 80m -run TestMatrix ./test/e2e/matrix | grep -E -e '--- FAIL|^FAIL|^ok|MISMATCH|checks on [0-9]+ cells'

servers-doc: cluster matrix ## Regenerate docs/servers.md from a run of every matrix cell
	WATCHRV_CLUSTER_BIN=$$(bash test/cluster/build.sh) WATCHRV_MATRIX_BIN="$$(bash test/cluster/build-matrix.sh)" \
	  $(GO_TEST) -tags e2e -count=1 -timeout 20m -run TestMatrix ./test/e2e/matrix -update

demo-bin:
	go build -o $(DEMO_BIN) ./test/e2e/demo

# demo and serve exec the demo binary (not `go run`) so that it is make's own
# child: Ctrl-C, `kill <make>` (make passes SIGTERM on) and even
# `kill -9 <make>` (the demo's parent-death signal) reach the process that
# stops etcd and kube-apiserver. test/e2e/demo/serve_test.go proves it.
demo: build cluster demo-bin ## Start the local real API server, make history, run the plugin on it
	exec $(DEMO_BIN) --plugin $(BIN)

# make serve WATCH_CACHE=off: the same server with --watch-cache=false.
WATCH_CACHE ?= on
serve: build cluster demo-bin ## Start the local real API server with the demo history and keep it running (WATCH_CACHE=off: without its watch cache)
	exec $(DEMO_BIN) --plugin $(BIN) --serve --watch-cache=$(if $(filter off,$(WATCH_CACHE)),false,true)

bench: ## probe (watch cache on/off) and the watch replay against kubectl on the local real API server; writes docs/performance.md
	bash bench/compare.sh -w

# The scale bench (issue 23; not part of make test): one real v1.37.2
# grown to 200 CRDs and 1,000 / 10,000 / 100,000 configmaps, the HA
# harness, clients on 1 and 10 GiB of audit log; every command beside what
# a user runs instead, with its checks. An hour or more on 2 cores.
# bench-scale-small is the quick run (what CI may call): report and
# checks on stdout, docs untouched; STRICT=1 makes a failed check exit 1.
.PHONY: bench-scale bench-scale-small
bench-scale: cluster ## The scale bench at every size; writes docs/performance.md, docs/img/scale-*.png, bench/results/scale.json
	bash bench/scale.sh -w

bench-scale-small: cluster ## The scale bench at 1,000 and 10,000 configmaps and 256 MiB / 1 GiB of audit log (stdout only)
	SIZES=$${SIZES:-1000,10000} LOG_SIZES=$${LOG_SIZES:-256MiB,1GiB} bash bench/scale.sh

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	go vet -tags e2e ./test/...
	cd test/cluster && go vet ./...

clean:
	rm -rf bin dist

# --- Shipping: release archives, krew manifest, docs (issue 6) ---------------
.PHONY: dist release-check krew-check docs docs-reference docs-reference-check

dist: ## Reproducible archives, checksums.txt and the release plugin.yaml in dist/
	bash hack/dist.sh

# make test's test/e2e/krew builds this machine's archive only (twice, byte
# for byte) and installs it with krew; release-check runs the same tests on
# every platform of plugin.yaml. CI runs both (.ci/run).
release-check: cluster e2e-bin ## The full release matrix: every platform built twice (same bytes), checked, installed with krew
	$(E2E_ENV) WATCHRV_RELEASE_PLATFORMS=all $(GO_TEST) -tags e2e $(E2E_FLAGS) ./test/e2e/krew

krew-check: ## Validate plugin.yaml (and dist/plugin.yaml) with krew's own validation
	bash hack/krew-check.sh

docs-reference: ## Regenerate docs/reference/ from the command tree (cobra/doc)
	bash hack/refdocs.sh -update

docs-reference-check:
	bash hack/refdocs.sh

docs: docs-reference cluster ## Regenerate docs/reference/ and every captured output in README.md and docs/*.md
	WATCHRV_CLUSTER_BIN=$$(bash test/cluster/build.sh) $(GO_TEST) -tags e2e -count=1 -timeout 20m ./test/e2e/docs -run TestCaptures -update $(if $(PAGES),-only $(PAGES)) $(if $(ALL),-all)

# make test and make unit also check the manifest and the reference; make e2e
# runs test/e2e/krew (host archive, real krew install), test/e2e/docs
# (capture drift) and test/e2e/demo (make serve stops its cluster when killed).
unit: krew-check docs-reference-check e2e-pkgs-check e2e-long-tests-check

.PHONY: e2e-long-tests-check
e2e-long-tests-check: ## E2E_LONG_TESTS names tests of E2E_LONG_TEST_PKGS, and every test there that starts a server of its own
	@files=$$(for d in $(E2E_LONG_TEST_PKGS); do ls $$d/*_test.go; done); \
	for n in $$(echo '$(E2E_LONG_TESTS)' | tr '|' ' '); do \
	  grep -qs "^func $$n(t \*testing.T)" $$files || { echo "E2E_LONG_TESTS names $$n, which is no test of $(E2E_LONG_TEST_PKGS) (Makefile)"; exit 1; }; done; \
	for n in $$(awk '/^func Test/{split($$2,a,"(");name=a[1]} /framework\.(StartT|StartCell|StartHAT|StartAggregatedT)\(/{print name}' $$files | sort -u); do \
	  case "|$(E2E_LONG_TESTS)|" in *"|$$n|"*) ;; *) echo "$$n starts an API server of its own: name it in E2E_LONG_TESTS (make test-long runs it; Makefile)"; exit 1;; esac; done

.PHONY: e2e-pkgs-check
e2e-pkgs-check: ## every e2e package is in E2E_PKGS, E2E_LONG_PKGS or release-check
	@for d in $$(go list -tags e2e ./test/e2e/... | sed 's|github.com/watchrv/kubectl-watchrv/|./|'); do \
	  case " $(E2E_PKGS) $(E2E_LONG_PKGS) ./test/e2e/krew " in *" $$d "*) ;; *) if ls $$d/*_test.go >/dev/null 2>&1; then echo "e2e package $$d is in neither E2E_PKGS nor E2E_LONG_PKGS (Makefile)"; exit 1; fi;; esac; done
