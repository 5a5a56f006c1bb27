package framework

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// The addresses of an HA control plane on loopback. Server i (0-based) binds
// to 127.0.0.(i+1) and advertises 198.51.100.(i+1), a documentation range
// that is never dialled: clients reach it only through HA.Proxy, which maps
// it back to 127.0.0.(i+1). Advertising a loopback address is not an option:
// the endpoint reconciler refuses it.
const (
	haBindPrefix      = "127.0.0."
	haAdvertisePrefix = "198.51.100."
	// haServiceIP is the `kubernetes` Service's ClusterIP: the first address
	// of --service-cluster-ip-range 10.0.0.0/24. Virtual; never dialled.
	haServiceIP = "10.0.0.1"
)

// HAOptions configure StartHA.
type HAOptions struct {
	// Servers is the number of API servers (3 when 0).
	Servers int
	// APIServers[i] configures server i (watch cache, extra flags...); a
	// missing entry is the zero value. StartHA sets the address, port, etcd,
	// certificate and endpoint-reconciler fields itself.
	APIServers []APIServerOptions
	// Dir and Logf are as in Options.
	Dir  string
	Logf func(format string, args ...any)
}

// HA is an HA control plane on loopback: one etcd, several kube-apiservers on
// one port behind a round-robin balancer, each advertised in the `kubernetes`
// EndpointSlice under a documentation-range address.
type HA struct {
	// Cluster holds etcd and the API servers; Cluster.Kubeconfig,
	// Cluster.RESTConfig(i) and Cluster.Clientset(i) go straight to server i.
	Cluster *Cluster
	// Port is the secure port every API server listens on.
	Port int
	// Balancer spreads new connections over 127.0.0.1..N:Port.
	Balancer *Balancer
	// Proxy is the CONNECT proxy of the kubeconfigs' proxy-url: it maps
	// 198.51.100.N:Port to 127.0.0.N:Port and lets the balancer's and the
	// servers' own loopback addresses through; anything else is refused.
	Proxy *ConnectProxy
	// EtcdLinks[i] is server i's only way to etcd; pause it to make that
	// server's watch cache fall behind. Keep pauses short: after ~15 s the
	// server's endpoint lease (refreshed every 10 s, TTL 15 s) expires and
	// the other servers drop it from the EndpointSlice; after ~40 s its etcd
	// client's keepalive (30 s + 10 s) gives up and redials (through the
	// link, so the redial is paused too).
	EtcdLinks []*PausableLink
	// CAFile verifies every server under every address in EndpointAddrs,
	// the balancer's and 127.0.0.N.
	CAFile string
	// Kubeconfig (admin) and UserKubeconfig (no grants) point at the
	// balancer, with proxy-url set to Proxy.
	Kubeconfig     string
	UserKubeconfig string

	direct []string
}

// StartHA starts etcd and opts.Servers API servers (in parallel), the
// balancer and the proxy, and returns once every server is ready and the
// `kubernetes` EndpointSlice lists all of them. On error everything started
// so far is stopped.
func StartHA(ctx context.Context, opts HAOptions) (h *HA, err error) {
	n := opts.Servers
	if n == 0 {
		n = 3
	}
	if n < 1 || n > 254 {
		return nil, fmt.Errorf("HA servers: %d is not in 1..254", n)
	}
	bin, err := Binaries()
	if err != nil {
		return nil, err
	}
	c, err := startEtcdOnly(ctx, bin, Options{Dir: opts.Dir, Logf: opts.Logf})
	if err != nil {
		return nil, err
	}
	h = &HA{Cluster: c}
	started := h // a failed return sets h to nil: stop what was started
	defer func() {
		if err != nil {
			started.Stop()
		}
	}()
	if h.Port, err = freePortOnAll(n); err != nil {
		return nil, err
	}
	ips := []net.IP{net.ParseIP(haServiceIP)}
	for i := 0; i < n; i++ {
		ips = append(ips, net.ParseIP(h.bindHost(i)), net.ParseIP(h.advertiseHost(i)))
	}
	cert, err := WriteServingCert(c.Dir, ips, []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"})
	if err != nil {
		return nil, err
	}
	h.CAFile = cert.CAFile
	etcdHostPort := strings.TrimPrefix(c.EtcdURL, "http://")
	var servers []*APIServer
	for i := 0; i < n; i++ {
		link, err := StartPausableLink(etcdHostPort)
		if err != nil {
			return nil, err
		}
		h.EtcdLinks = append(h.EtcdLinks, link)
		var o APIServerOptions
		if i < len(opts.APIServers) {
			o = opts.APIServers[i]
		}
		o.BindAddress, o.AdvertiseAddress, o.Port = h.bindHost(i), h.advertiseHost(i), h.Port
		o.EtcdURL = link.URL()
		o.EndpointReconciler = "lease" // each server keeps its own address in the slice
		o.Serving = cert
		a, err := c.newAPIServer(o)
		if err != nil {
			return nil, err
		}
		servers = append(servers, a)
	}
	start := time.Now()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, a := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.startAPIServer(ctx, a)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c.logf("%d kube-apiservers ready on port %d in %s", n, h.Port, time.Since(start).Round(time.Millisecond))

	backends := make([]string, n)
	routes := map[string]string{}
	for i := 0; i < n; i++ {
		backends[i] = net.JoinHostPort(h.bindHost(i), strconv.Itoa(h.Port))
		routes[h.EndpointAddr(i)] = backends[i]
		routes[backends[i]] = backends[i]
	}
	if h.Balancer, err = StartBalancer(backends); err != nil {
		return nil, err
	}
	routes[h.Balancer.Addr()] = h.Balancer.Addr()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h.Proxy = StartConnectProxy(ln, func(target string) (string, bool) {
		dest, ok := routes[target]
		return dest, ok
	})
	if h.Kubeconfig, err = c.WriteKubeconfigVia("ha-admin.kubeconfig", h.Balancer.URL(), h.CAFile, AdminToken, h.ProxyURL()); err != nil {
		return nil, err
	}
	if h.UserKubeconfig, err = c.WriteKubeconfigVia("ha-nobody.kubeconfig", h.Balancer.URL(), h.CAFile, UserToken, h.ProxyURL()); err != nil {
		return nil, err
	}
	for i, a := range servers {
		path, err := c.WriteKubeconfig(fmt.Sprintf("direct-%d.kubeconfig", i), a, AdminToken)
		if err != nil {
			return nil, err
		}
		h.direct = append(h.direct, path)
	}
	c.Kubeconfig = h.direct[0]
	if c.UserKubeconfig, err = c.WriteKubeconfig("nobody.kubeconfig", servers[0], UserToken); err != nil {
		return nil, err
	}
	if err := h.waitEndpoints(ctx, 60*time.Second); err != nil {
		return nil, err
	}
	c.logf("HA control plane: balancer %s, proxy %s, endpoints %v", h.Balancer.Addr(), h.Proxy.Addr(), h.EndpointAddrs())
	return h, nil
}

// Stop resumes every etcd link (a paused server would not shut down), stops
// the cluster, then the links, the balancer and the proxy.
func (h *HA) Stop() {
	for _, l := range h.EtcdLinks {
		l.Resume()
	}
	h.Cluster.Stop()
	for _, l := range h.EtcdLinks {
		l.Close()
	}
	if h.Balancer != nil {
		h.Balancer.Close()
	}
	if h.Proxy != nil {
		h.Proxy.Close()
	}
}

// EtcdLink is server i's pausable link to etcd.
func (h *HA) EtcdLink(i int) *PausableLink { return h.EtcdLinks[i] }

// DirectKubeconfig is an admin kubeconfig straight to server i at
// 127.0.0.(i+1):Port, with no proxy.
func (h *HA) DirectKubeconfig(i int) string { return h.direct[i] }

// EndpointAddr is server i's advertised host:port, 198.51.100.(i+1):Port.
func (h *HA) EndpointAddr(i int) string {
	return net.JoinHostPort(h.advertiseHost(i), strconv.Itoa(h.Port))
}

// EndpointAddrs are every server's advertised host:port, in server order:
// what the `kubernetes` EndpointSlice lists.
func (h *HA) EndpointAddrs() []string {
	out := make([]string, len(h.Cluster.APIServers))
	for i := range out {
		out[i] = h.EndpointAddr(i)
	}
	return out
}

// ServerIndex maps an advertised host:port back to its server (-1: none).
func (h *HA) ServerIndex(endpointAddr string) int {
	for i := range h.Cluster.APIServers {
		if h.EndpointAddr(i) == endpointAddr {
			return i
		}
	}
	return -1
}

// ProxyURL is http://<Proxy's address>, the kubeconfigs' proxy-url.
func (h *HA) ProxyURL() string { return "http://" + h.Proxy.Addr() }

// RESTConfig is an admin config through the balancer and the proxy, as the
// HA Kubeconfig describes it, with the harness's User-Agent.
func (h *HA) RESTConfig() *rest.Config {
	return h.viaProxy(h.Balancer.URL())
}

// AdvertisedRESTConfig is an admin config for server i at its advertised
// address through the proxy: how a client that read the EndpointSlice
// reaches one server.
func (h *HA) AdvertisedRESTConfig(i int) *rest.Config {
	return h.viaProxy("https://" + h.EndpointAddr(i))
}

func (h *HA) viaProxy(host string) *rest.Config {
	proxy, _ := url.Parse(h.ProxyURL())
	return &rest.Config{
		Host:            host,
		BearerToken:     AdminToken,
		TLSClientConfig: rest.TLSClientConfig{CAFile: h.CAFile},
		Proxy:           http.ProxyURL(proxy),
		UserAgent:       HarnessUserAgent,
		QPS:             500,
		Burst:           1000,
	}
}

// EndpointSliceAddrs lists the host:ports of the `kubernetes` EndpointSlices
// in `default`, as server i sees them, sorted.
func (h *HA) EndpointSliceAddrs(ctx context.Context, i int) ([]string, error) {
	cs, err := h.Cluster.Clientset(i)
	if err != nil {
		return nil, err
	}
	slices, err := cs.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range slices.Items {
		for _, p := range s.Ports {
			if p.Port == nil {
				continue
			}
			for _, e := range s.Endpoints {
				for _, a := range e.Addresses {
					out = append(out, net.JoinHostPort(a, strconv.Itoa(int(*p.Port))))
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// waitEndpoints waits until the slice lists exactly every server: the lease
// reconciler of each server adds its own address a moment after it is ready.
func (h *HA) waitEndpoints(ctx context.Context, timeout time.Duration) error {
	want := h.EndpointAddrs()
	sort.Strings(want)
	deadline := time.Now().Add(timeout)
	var got []string
	var err error
	for {
		got, err = h.EndpointSliceAddrs(ctx, 0)
		if err == nil && strings.Join(got, ",") == strings.Join(want, ",") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the kubernetes EndpointSlice lists %v (error %v), want %v after %s", got, err, want, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (h *HA) bindHost(i int) string      { return haBindPrefix + strconv.Itoa(i+1) }
func (h *HA) advertiseHost(i int) string { return haAdvertisePrefix + strconv.Itoa(i+1) }

// freePortOnAll finds a port free on 127.0.0.1..n: all the servers of an HA
// control plane share one port, as behind a real load balancer.
func freePortOnAll(n int) (int, error) {
	return reservePort(func(port int) bool {
		for i := 1; i <= n; i++ {
			if !listenable(haBindPrefix+strconv.Itoa(i), port) {
				return false
			}
		}
		return true
	})
}
