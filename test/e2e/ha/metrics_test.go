//go:build e2e

package ha

import (
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

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
