package servers

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
)

// Found is the list of servers of one run, and how it was found.
type Found struct {
	Endpoints []string `json:"endpoints"`
	From      string   `json:"from"`
	// Leases are the identity leases when readable (never required).
	Leases   Leases `json:"leases"`
	Requests int    `json:"requests"`
}

// ErrNoReadyAddress: the EndpointSlices were read and name no ready
// server; the caller says how to give the servers by hand.
var ErrNoReadyAddress = errors.New("the EndpointSlices of Service default/kubernetes list no ready address")

// Find returns the endpoints given by hand (no request), or reads them
// from the `kubernetes` EndpointSlices through c, and the identity leases
// either way when readable. Its requests pace with b.
func Find(ctx context.Context, c *apiclient.Client, given []string, b *apiclient.Budget) (Found, error) {
	own := b.Share(0)
	f := Found{Endpoints: given, From: FromFlag}
	if len(given) == 0 {
		eps, err := Discover(ctx, c, own)
		f.Requests = own.Used()
		if err != nil {
			return f, err
		}
		if len(eps) == 0 {
			return f, ErrNoReadyAddress
		}
		f.Endpoints, f.From = eps, FromEndpointSlice
	}
	f.Leases = ReadLeases(ctx, c, own)
	f.Requests = own.Used()
	return f, nil
}

// Clients builds one client per endpoint from the kubeconfig's config.
// An endpoint whose client cannot be built gets a nil client and an error.
func Clients(cfg *rest.Config, endpoints []string) ([]*apiclient.Client, []error) {
	cs := make([]*apiclient.Client, len(endpoints))
	errs := make([]error, len(endpoints))
	for i, e := range endpoints {
		cs[i], errs[i] = ClientFor(cfg, e)
	}
	return cs, errs
}

// MeasureAll measures every server in parallel, one goroutine each: each
// server has its own request count (maxPerServer, so n servers cost at most
// n times one server), and all of them pace with b's --qps together.
func MeasureAll(ctx context.Context, clients []*apiclient.Client, clientErrs []error, endpoints []string, t apiclient.Target, b *apiclient.Budget, maxPerServer int, o MeasureOptions) []*Server {
	out := make([]*Server, len(endpoints))
	var wg sync.WaitGroup
	for i, e := range endpoints {
		if clients[i] == nil {
			s := &Server{Endpoint: e, Index: i + 1}
			s.fail(clientErrs[i], t)
			out[i] = s
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := Measure(ctx, clients[i], t, e, b.Share(maxPerServer), o)
			s.Index = i + 1
			out[i] = s
		}()
	}
	wg.Wait()
	return out
}

// View is the per-server view of one collection.
type View struct {
	Target   apiclient.Target
	Servers  []*Server
	Verdict  Verdict
	Requests int
	Duration time.Duration
}

// Observe measures every server for t and decides the verdict.
func Observe(ctx context.Context, clients []*apiclient.Client, clientErrs []error, endpoints []string, t apiclient.Target, b *apiclient.Budget, maxPerServer int, o MeasureOptions, fromRV uint64) *View {
	start := time.Now()
	v := &View{Target: t}
	v.Servers = MeasureAll(ctx, clients, clientErrs, endpoints, t, b, maxPerServer, o)
	v.Verdict = Decide(v.Servers, fromRV)
	for _, s := range v.Servers {
		v.Requests += s.Requests
	}
	v.Duration = time.Since(start)
	return v
}
