//go:build e2e

package probe

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Issue 16 item 22: the playbook's "See it" step, `probe configmaps -n
// demo --servers`, on the cluster `make serve` offers (one API server,
// --endpoint-reconciler-type=none: no EndpointSlices). Discovery finds no
// server there; the command the playbook and `make serve` give instead,
// with --endpoints and the server's own loopback address, works.
func TestProbeServersOnTheServeCluster(t *testing.T) {
	_, ns := newNamespace(t, shared, "serve-servers")
	r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--servers")
	t.Logf("--servers alone: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	if r.Code == 0 {
		t.Fatalf("without EndpointSlices --servers has nothing to discover; it exited 0:\n%s", r.Stdout)
	}
	if !strings.Contains(r.Stderr, "--endpoints") {
		t.Errorf("the failure must name the way out (--endpoints):\n%s", r.Stderr)
	}
	u, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	r = framework.Run(t, shared.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--servers", "--endpoints", u.Host)
	if r.Code != 0 || !strings.Contains(r.Stdout, u.Host) {
		t.Fatalf("--endpoints %s: exit %d\n%s%s", u.Host, r.Code, r.Stdout, r.Stderr)
	}
	t.Logf("--endpoints %s:\n%s", u.Host, r.Stdout)
}
