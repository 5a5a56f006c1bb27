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
	// One that refuses the connection, and one that takes it and never
	// answers, not even the TLS handshake (fresh user try 15: asked again
	// for every resource, 21 minutes at the default timeout).
	for _, dead := range []string{"127.0.0.1:1", framework.SilentServers(t, 1)[0]} {
		r := framework.Run(t, shared.Kubeconfig, 3*time.Minute, "probe", "--all", "-n", ns, "--qps", "100", "--request-timeout", "2s", "--endpoints", u.Host+","+dead)
		rows := 0 // the SERVER column's (a NOTE names the address too: "nothing listens at ADDR")
		for _, l := range strings.Split(r.Stdout, "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[2] == dead {
				rows++
			}
		}
		again := strings.Count(r.Stdout, "not dialled again after")
		t.Logf("%s: exit %d, %d rows of the dead server, %d not dialled again in %s\n%.2000s\n%s", dead, r.Code, rows, again, r.Duration, r.Stdout, r.Stderr)
		if r.Code != 12 || rows < 10 {
			t.Fatalf("exit %d with %d rows of %s, want 12 and a row for each resource", r.Code, rows, dead)
		}
		if again < rows-1 {
			t.Errorf("%d of the %d rows of %s say it was not dialled again: it was dialled for each resource", again, rows, dead)
		}
		// RESOURCE, the server (index and address), CURRENT RV, CACHE
		// RV, LAG, OLDEST RV, WIDTH, SOURCE: "-" on every row of the
		// server (fresh user try 17: blank after the first).
		for _, l := range strings.Split(r.Stdout, "\n") {
			if f := strings.Fields(l); len(f) > 8 && f[2] == dead && f[8] != "-" {
				t.Errorf("a row of %s has SOURCE %q, want -: %s", dead, f[8], l)
			}
		}
	}
}

// A server of --endpoints that makes no connection within the request's
// time bound is asked once, not once more for its cache RV (fresh user
// try 15: 20 s for a 10 s bound), and its row says so, not "cut off from
// etcd".
func TestProbeServersAsksASilentServerOnce(t *testing.T) {
	_, ns := newNamespace(t, shared, "serve-silent")
	u, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	silent := framework.SilentServers(t, 1)[0]
	r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--request-timeout", "2s", "--endpoints", u.Host+","+silent)
	t.Logf("exit %d in %s\n%s\n%s", r.Code, r.Duration, r.Stdout, r.Stderr)
	if r.Code != 12 || !strings.Contains(r.Stdout, "no connection within 2s") || strings.Contains(r.Stdout, "cut off from etcd") {
		t.Fatalf("exit %d, want 12 and the silent server's row saying no connection was made", r.Code)
	}
	if r.Duration > 4*time.Second+2*time.Second {
		t.Errorf("took %s: the silent server was asked more than once (2 s each)", r.Duration)
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

// probe --all --endpoints: a row whose CACHE RV may be storage's (no
// metric says whether the resource has a watch cache) names the command
// that shows which, and that command works when pasted (fresh user try
// 16: the note pointed at "the command in the verdict below", and --all
// prints no such verdict).
func TestProbeAllServersNamesTheMetricsCommand(t *testing.T) {
	_, ns := newNamespace(t, shared, "serve-all-see")
	u, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, shared.Kubeconfig, 3*time.Minute, "probe", "--all", "-n", ns, "--qps", "100", "--endpoints", u.Host)
	if r.Code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "in the verdict below") {
		t.Fatalf("a row points at a verdict --all does not print:\n%s", r.Stdout)
	}
	_, rest, ok := strings.Cut(r.Stdout, "(not known here: ")
	if !ok {
		t.Fatalf("no row says its CACHE RV may be storage's (events has no watch-cache metric until written):\n%s", r.Stdout)
	}
	line, _, ok := strings.Cut(rest, " shows which)")
	if !ok || !strings.HasPrefix(line, "kubectl watchrv probe ") || !strings.Contains(line, "--metrics") {
		t.Fatalf("the note names no probe --metrics command: %q", line)
	}
	p := framework.RunPasted(t, line, nil, 2*time.Minute)
	if p.Code != 0 || !strings.Contains(p.Stdout, "CAPACITY") {
		t.Fatalf("the suggested %s: exit %d\n%s\n%s", line, p.Code, p.Stdout, p.Stderr)
	}
}
