//go:build e2e

package ha

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// serverVersion asks the server behind cfg for /version with userAgent.
func serverVersion(t *testing.T, cfg *rest.Config, userAgent string) string {
	t.Helper()
	cfg.UserAgent = userAgent
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("%s: GET /version through %s: %v", userAgent, cfg.Host, err)
	}
	return v.GitVersion
}

// Each server answers at 127.0.0.N (directly) and at 198.51.100.N (through
// the proxy), and the proxy's mapping leads to the right server: the request
// shows up in that server's audit log and in no other.
func TestEveryServerReachableDirectlyAndAtItsAdvertisedAddress(t *testing.T) {
	h := shared
	for i, a := range h.Cluster.APIServers {
		if host, _, _ := net.SplitHostPort(a.URL[len("https://"):]); host != "127.0.0."+strconv.Itoa(i+1) {
			t.Errorf("server %d listens at %s, want 127.0.0.%d", i, a.URL, i+1)
		}
		direct := fmt.Sprintf("watchrv-ha-direct-%d", i)
		advertised := fmt.Sprintf("watchrv-ha-advertised-%d", i)
		if v := serverVersion(t, h.Cluster.RESTConfig(i), direct); v != "v1.37.2" {
			t.Errorf("server %d is %s, want v1.37.2", i, v)
		}
		serverVersion(t, h.AdvertisedRESTConfig(i), advertised)
		want := make([]int, len(h.Cluster.APIServers))
		want[i] = 1
		for _, ua := range []string{direct, advertised} {
			if got := h.WaitAuditCounts(t, ua, want); !reflect.DeepEqual(got, want) {
				t.Errorf("requests of %s per server = %v, want %v", ua, got, want)
			}
		}
	}
	if v := serverVersion(t, h.RESTConfig(), "watchrv-ha-balanced"); v != "v1.37.2" {
		t.Errorf("through the balancer: %s, want v1.37.2", v)
	}
}

// The `kubernetes` EndpointSlice lists exactly the three documentation-range
// addresses on the shared port, whichever server one asks: each server's
// lease reconciler put its own advertise address there.
func TestEndpointSliceListsEveryServer(t *testing.T) {
	h := shared
	want := h.EndpointAddrs()
	for i, addr := range want {
		if wantAddr := net.JoinHostPort("198.51.100."+strconv.Itoa(i+1), strconv.Itoa(h.Port)); addr != wantAddr {
			t.Fatalf("EndpointAddr(%d) = %s, want %s", i, addr, wantAddr)
		}
	}
	sort.Strings(want)
	for i := range h.Cluster.APIServers {
		got, err := h.EndpointSliceAddrs(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("server %d: the kubernetes EndpointSlice lists %v, want %v", i, got, want)
		}
	}
}

// The HA kubeconfigs lead through the proxy to the balancer: client-go
// honours their proxy-url, as the plugin (which loads kubeconfigs the same
// way) will. /version is public, so both users get an answer.
func TestKubeconfigsGoThroughProxyAndBalancer(t *testing.T) {
	h := shared
	for _, path := range []string{h.Kubeconfig, h.UserKubeconfig} {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Proxy == nil {
			t.Fatalf("%s: no proxy-url", path)
		}
		before := countOf(h.Proxy.Seen(), h.Balancer.Addr())
		serverVersion(t, cfg, "watchrv-ha-kubeconfig")
		if after := countOf(h.Proxy.Seen(), h.Balancer.Addr()); after != before+1 {
			t.Errorf("%s: the proxy saw %d CONNECTs to the balancer, want %d", path, after, before+1)
		}
	}
}

func countOf(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}
