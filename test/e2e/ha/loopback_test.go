//go:build e2e

package ha

import (
	"testing"
)

// Nothing left loopback: every CONNECT the proxy saw was to a server's
// advertised address or to a loopback address of the harness, the proxy
// refused nothing, and no server logged a dial outside 127.0.0.0/8 (not to
// its own advertise address, not to the `kubernetes` ClusterIP). MainHA
// checks the same once more after every test of the package.
func TestEveryPacketStaysOnLoopback(t *testing.T) {
	h := shared
	for i := range h.Cluster.APIServers {
		serverVersion(t, h.AdvertisedRESTConfig(i), "watchrv-ha-loopback")
	}
	allowed := map[string]bool{h.Balancer.Addr(): true}
	for _, b := range h.Balancer.Backends() {
		allowed[b] = true
	}
	for _, a := range h.EndpointAddrs() {
		allowed[a] = true
	}
	seen := h.Proxy.Seen()
	for _, target := range seen {
		if !allowed[target] {
			t.Errorf("the proxy was asked for %s, which is not an address of the harness", target)
		}
	}
	for _, a := range h.EndpointAddrs() {
		if countOf(seen, a) == 0 {
			t.Errorf("the proxy never saw %s: the advertised addresses were not reached through it", a)
		}
	}
	if err := h.LoopbackOnly(); err != nil {
		t.Fatal(err)
	}
	t.Logf("the proxy saw %d CONNECTs, refused none", len(seen))
}
