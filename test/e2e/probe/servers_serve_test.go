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
	// What is true: there is no slice, not one that lists no address
	// (fresh user try 14).
	if !strings.Contains(r.Stderr, "has no EndpointSlice") || strings.Contains(r.Stderr, "list no ready address") {
		t.Errorf("the failure must say there is no EndpointSlice:\n%s", r.Stderr)
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

// A server of --endpoints that refuses the connection is dialled once in
// a probe --all, not once per resource (fresh user try 14: 314 requests
// and 62 s for 63 resources): its rows after the first fail with that
// first error, and the run is partial (exit 12).
func TestProbeAllServersDialsARefusingServerOnce(t *testing.T) {
	_, ns := newNamespace(t, shared, "serve-dead")
	u, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, shared.Kubeconfig, 3*time.Minute, "probe", "--all", "-n", ns, "--qps", "100", "--endpoints", u.Host+",127.0.0.1:1")
	rows := strings.Count(r.Stdout, " 127.0.0.1:1 ") // the SERVER column
	again := strings.Count(r.Stdout, "not dialled again after")
	t.Logf("exit %d, %d rows of the dead server, %d not dialled again\n%.2000s\n%s", r.Code, rows, again, r.Stdout, r.Stderr)
	if r.Code != 12 || rows < 10 {
		t.Fatalf("exit %d with %d rows of 127.0.0.1:1, want 12 and a row for each resource", r.Code, rows)
	}
	if again < rows-1 {
		t.Errorf("%d of the %d rows of 127.0.0.1:1 say it was not dialled again: it was dialled for each resource", again, rows)
	}
}

// --no-headers, as kubectl get's: every table without its header line,
// the rows the same (the watch's too), for each command that prints one.
func TestNoHeadersLeavesOutEveryHeaderLine(t *testing.T) {
	_, ns := newNamespace(t, shared, "no-headers")
	for _, c := range []struct {
		args   []string
		header string
	}{
		{[]string{"probe", "configmaps", "-n", ns}, "RESOURCE "},
		{[]string{"watch", "configmaps", "-n", ns, "--timeout", "1s"}, "TIME "},
		{[]string{"top", "--once", "--interval", "1s"}, "RESOURCE "},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			t.Parallel() // each waits out its interval or timeout
			with := framework.Run(t, shared.Kubeconfig, time.Minute, c.args...)
			without := framework.Run(t, shared.Kubeconfig, time.Minute, append(c.args, "--no-headers")...)
			if with.Code != 0 || without.Code != 0 || !strings.Contains(with.Stdout, c.header) {
				t.Fatalf("%v: exit %d and %d, or no %q header:\n%s\n%s", c.args, with.Code, without.Code, c.header, with.Stdout, without.Stderr)
			}
			for _, l := range strings.Split(without.Stdout, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), strings.TrimSpace(c.header)+" ") {
					t.Errorf("%v --no-headers still prints the header line %q:\n%s", c.args, l, without.Stdout)
				}
			}
		})
	}
}
