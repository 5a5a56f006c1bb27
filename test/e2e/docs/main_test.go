//go:build e2e

// Package docs keeps the output shown in README.md and docs/*.md real: every
// block between
//
//	<!-- capture: kubectl watchrv list cm -n demo -->
//	<!-- /capture -->
//
// is the output of that command line on the demo's cluster (a real etcd and
// kube-apiserver v1.37.2 with the demo's history: `make serve`). The test
// fails when a checked-in capture no longer matches what the command prints,
// up to resourceVersions, UIDs, numbers and times, and when a command of the
// plugin has no capture anywhere. `make docs` rewrites the captures:
//
//	go test -tags e2e -count=1 ./test/e2e/docs -run TestCaptures -update
package docs

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

var (
	update = flag.Bool("update", false, "rewrite the capture blocks of README.md and docs/*.md (make docs)")
	only   = flag.String("only", "", "comma-separated pages (e.g. docs/watch.md) to capture, instead of all of them")
	// all rewrites even the captures where only numbers moved, so that
	// every page shows the same run (the same RVs for the same history).
	all = flag.Bool("all", false, "with -update: rewrite every capture from this one run, not only those that drifted")
)

// env is the demo cluster the captures run on, shared by the package's tests.
var env *demoEnv

func TestMain(m *testing.M) {
	flag.Parse()
	var err error
	env, err = startDemo()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: cannot start the demo's real etcd + kube-apiserver:", err)
		os.Exit(1)
	}
	code := m.Run()
	env.stop()
	os.Exit(code)
}
