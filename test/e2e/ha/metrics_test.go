//go:build e2e

package ha

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// probe --servers --metrics reads each server's own /metrics around its
// probe: every server has its own watch cache, and its cache RV (from the
// metric) never runs ahead of what its rv=0 list read.
func TestServersMetricsPerServer(t *testing.T) {
	ns := "ha-metrics"
	prepareNamespace(t, ns, 10)
	r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--servers", "--metrics", "-o", "json")
	v := decodeServers(t, r)
	if len(v.Servers) != 3 {
		t.Fatalf("want 3 servers, got %d", len(v.Servers))
	}
	for _, s := range v.Servers {
		m := s.Metrics
		if m == nil || m.Note != "" || m.Capacity == nil || *m.Capacity <= 0 || m.ResourceVersion == nil || m.Requests != 2 {
			t.Fatalf("server %s: want its own watch-cache metrics, got %+v", s.Endpoint, m)
		}
		if uint64(*m.ResourceVersion) > s.CurrentRV {
			t.Fatalf("server %s: cache RV metric %v ahead of its current RV %d", s.Endpoint, *m.ResourceVersion, s.CurrentRV)
		}
		if s.Requests != 5 {
			t.Fatalf("server %s: want 5 requests (current RV, a watch, the cache RV, /metrics twice), got %d", s.Endpoint, s.Requests)
		}
	}
	human := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--servers", "--metrics")
	if human.Code != 0 || !containsAll(human.Stdout, "CAPACITY", "198.51.100.1", "198.51.100.3") {
		t.Fatalf("code %d:\n%s\n%s", human.Code, human.Stdout, human.Stderr)
	}
}

// probe --endpoints --metrics with one server that does not answer shows
// the metrics of the ones that did, and names the one that did not (fresh
// user try 16: the whole table was gone, replaced by its note).
func TestServersMetricsBesideADeadServer(t *testing.T) {
	good := net.JoinHostPort("127.0.0.1", strconv.Itoa(shared.Port))
	r := framework.Run(t, shared.DirectKubeconfig(0), time.Minute, "--request-timeout", "5s", "probe", "configmaps", "-n", "default", "--endpoints", good+",127.0.0.1:1", "--metrics")
	if r.Code != 12 {
		t.Fatalf("exit %d, want 12 (partial):\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	// The row of the good server in the table after the CAPACITY header:
	// "1 127.0.0.1:PORT 100 11 ...".
	var row string
	_, table, _ := strings.Cut(r.Stdout, "CAPACITY")
	for _, l := range strings.Split(table, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[1] == good {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) < 3 || f[2] == "-" {
		t.Fatalf("the metrics row of %s that answered is missing or empty (%q):\n%s\n%s", good, row, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout+r.Stderr, "127.0.0.1:1: watch-cache metrics not shown") {
		t.Fatalf("the server that did not answer is not named beside its note:\n%s\n%s", r.Stdout, r.Stderr)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
