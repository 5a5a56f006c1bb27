//go:build e2e

// Package informerlog puts a real client-go informer (test/e2e/informer) in
// the loop: it forces, on a real kube-apiserver v1.37.2 over a real etcd,
// the situations that break an informer's watch (its watch cache window
// expires, the API server restarts, etcd compacts with the watch cache off),
// keeps the informer's ACTUAL klog output, feeds it to
// "kubectl watchrv explain-error -f", and checks every resourceVersion error
// found against numbers read from the real situation. It also runs
// "kubectl watchrv watch --follow" beside the informer over one outage and
// checks that the plugin's gap report equals what the informer's handlers
// were told after their relist.
package informerlog

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// record copies this run's informer logs into testdata/ (recorded real output).
var record = flag.Bool("record", false, "copy the informer logs of this run into testdata/")

func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := framework.Binaries(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	if _, err := framework.PluginBinary(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	if _, err := framework.InformerBinary(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
