//go:build e2e

package ha

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"k8s.io/client-go/rest"
)

// The balancer sends each new connection to the next server: six clients,
// each with a fresh connection through the proxy, land two on each server,
// by the balancer's count and by the servers' own audit logs.
func TestBalancerSpreadsNewConnections(t *testing.T) {
	h := shared
	const perServer = 2
	n := len(h.Cluster.APIServers)
	before := h.Balancer.Counts()
	const ua = "watchrv-ha-spread"
	for k := 0; k < perServer*n; k++ {
		cfg := h.RESTConfig()
		cfg.UserAgent = ua
		// A config with a proxy gets a transport of its own in client-go,
		// hence a new connection.
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, cfg.Host+"/version", nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("request %d through the balancer: %v", k, err)
		}
		resp.Body.Close()
		hc.CloseIdleConnections()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d through the balancer: %s", k, resp.Status)
		}
	}
	after := h.Balancer.Counts()
	want := make([]int, n)
	for i := range want {
		want[i] = perServer
	}
	delta := make([]int, n)
	for i := range delta {
		delta[i] = after[i] - before[i]
	}
	t.Logf("connections per backend %v: before %v, after %v", h.Balancer.Backends(), before, after)
	if !reflect.DeepEqual(delta, want) {
		t.Errorf("new connections per backend = %v, want %v", delta, want)
	}
	if got := h.WaitAuditCounts(t, ua, want); !reflect.DeepEqual(got, want) {
		t.Errorf("requests per server by the audit logs = %v, want %v", got, want)
	}
}
