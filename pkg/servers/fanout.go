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
	// NotIP are the addresses the EndpointSlices list that are no IP
	// address: never dialled, each a failed row after the others.
	NotIP []NotIPAddress `json:"notIPAddresses,omitempty"`
	From  string         `json:"from"`
	// Leases are the identity leases when readable (never required); nil
	// when the signal cut their read.
	Leases   *Leases `json:"leases,omitempty"`
	Requests int     `json:"requests"`
}

// ErrNoReadyAddress: the EndpointSlices were read and name no ready
// server; the caller says how to give the servers by hand.
var ErrNoReadyAddress = errors.New("the EndpointSlices of Service default/kubernetes list no ready address")

// ErrNoEndpointSlice: Service default/kubernetes has no EndpointSlice at
// all (an API server run with --endpoint-reconciler-type=none writes
// none, as make serve's is): "list no ready address" would say of slices
// that are not there (fresh user try 14).
var ErrNoEndpointSlice = errors.New("Service default/kubernetes has no EndpointSlice (an API server run with --endpoint-reconciler-type=none writes none)")

func noAddress(slices int) error {
	if slices == 0 {
		return ErrNoEndpointSlice
	}
	return ErrNoReadyAddress
}

// Find returns the endpoints given by hand (no request), or reads them
// from the `kubernetes` EndpointSlices through c, and the identity leases
// either way when readable. Its requests pace with b.
func Find(ctx context.Context, c *apiclient.Client, given []string, b *apiclient.Budget) (Found, error) {
	own := b.Share(0)
	ctx, sw := apiclient.StartStopwatch(ctx) // what the signal cut left out (Kept)
	f := Found{Endpoints: given, From: FromFlag}
	if len(given) == 0 {
		l, err := Discover(ctx, c, own)
		f.Requests, _ = sw.Kept(own.Used())
		if err != nil {
			return f, err
		}
		if len(l.Endpoints)+len(l.NotIP) == 0 {
			return f, noAddress(l.Slices)
		}
		f.Endpoints, f.NotIP, f.From = l.Endpoints, l.NotIP, FromEndpointSlice
	}
	f.Leases = ReadLeases(ctx, c, own)
	f.Requests, _ = sw.Kept(own.Used())
	return f, nil
}

// Member is one API server of the fleet: its address, and its client or
// why none could be built.
type Member struct {
	Endpoint string
	Client   *apiclient.Client
	Err      error
}

// Fleet is the API servers of one run, found once and dialled directly.
type Fleet struct {
	Found   Found
	Members []Member
}

// NewFleet builds one client per endpoint found, from the kubeconfig's
// config. An endpoint whose client cannot be built keeps the error; an
// address that is no IP address gets no client (NotIPError).
func NewFleet(cfg *rest.Config, found Found) *Fleet {
	f := &Fleet{Found: found, Members: make([]Member, 0, len(found.Endpoints)+len(found.NotIP))}
	for _, e := range found.Endpoints {
		c, err := ClientFor(cfg, e)
		f.Members = append(f.Members, Member{Endpoint: e, Client: c, Err: err})
	}
	for _, a := range found.NotIP {
		f.Members = append(f.Members, Member{Endpoint: a.Address, Err: &NotIPError{a}})
	}
	return f
}

// FanOutWidth is how many servers Each asks at a time: every server of a
// real control plane (1 to 7) at once, and a fleet of MaxServers in a few
// rounds, so that the goroutines, connections and answers in flight stay
// few whatever the fleet's size.
const FanOutWidth = 16

// Each is the one fan-out over the fleet: fn runs for every member with a
// client, in parallel, at most FanOutWidth at a time, with its own budget (its own
// request count, at most maxPerServer, 0 = unlimited, so n servers cost at
// most n times one server) that paces with b's --qps together with the
// others. A member without a client gets failed, inline. Each returns,
// by member, the requests its budget let through less those the signal
// cut or that were never sent (apiclient.Stopwatch.Kept: fn sends under
// the ctx it is given): the fleet's one count, which the caller splits
// into its rows' and the cut servers' (Interruption.CutRequests).
func (f *Fleet) Each(ctx context.Context, b *apiclient.Budget, maxPerServer int, fn func(ctx context.Context, i int, m Member, own *apiclient.Budget), failed func(i int, m Member)) (kept []int) {
	shares := make([]*apiclient.Budget, len(f.Members))
	kept = make([]int, len(f.Members))
	var wg sync.WaitGroup
	slots := make(chan struct{}, FanOutWidth)
	for i, m := range f.Members {
		if m.Client == nil {
			failed(i, m)
			continue
		}
		shares[i] = b.Share(maxPerServer)
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			mctx, sw := apiclient.StartStopwatch(ctx)
			fn(mctx, i, m, shares[i])
			kept[i], _ = sw.Kept(shares[i].Used())
		}()
	}
	wg.Wait()
	return kept
}

// MeasureAll measures every server of the fleet (Measure, through Each).
// A server whose measure the run's cut (Ctrl-C, SIGTERM: apiclient.Cut)
// ended, or that it never began, is no row: what the signal cut is not
// an outcome (docs/exit-codes.md, 130), as the resource being measured
// is no row of an --all run (sweep.Each), and the one request of a
// one-target run is not printed. Adversary try 22 F4: the server being
// measured was a row "Interrupted: Get URL: interrupt signal received",
// counted as a failure, and the verdict lines were drawn about it. The
// rows are those measured before the cut, in the fleet's order (their
// Index is their place in the fleet); measured says how many there are
// of len(f.Members). requests are the rows' (each row's Requests), cut
// those sent to the servers the signal cut before it did: no row's, so in
// no count of the rows, said apart (Interruption.CutRequests), as
// sweep.Run.Cut is of the resource it cut (user try 24 F3).
func MeasureAll(ctx context.Context, f *Fleet, t apiclient.Target, b *apiclient.Budget, maxPerServer int, o MeasureOptions) (measured []*Server, requests int, cut CutShare) {
	out := make([]*Server, len(f.Members))
	kept := f.Each(ctx, b, maxPerServer, func(ctx context.Context, i int, m Member, own *apiclient.Budget) {
		s := Measure(ctx, m.Client, t, m.Endpoint, own, o)
		s.Index = i + 1
		if apiclient.Cut(ctx) {
			return // ended by the cut, or begun after it: not measured
		}
		out[i] = s
	}, func(i int, m Member) {
		s := &Server{Endpoint: m.Endpoint, Index: i + 1}
		s.fail(m.Err)
		out[i] = s
	})
	measured = make([]*Server, 0, len(out))
	for _, s := range out {
		if s != nil {
			measured = append(measured, s)
		}
	}
	requests, cut = splitKept(kept, func(i int) bool { return out[i] == nil })
	return measured, requests, cut
}

// CutShare is what the servers the signal cut had answered before it did:
// no row's (Interruption.CutRequests, CutTargets).
type CutShare struct {
	// Requests are their requests the ledger counted (Each's kept: the
	// answered ones; the cut in flight are Cost.Cut, the never sent none).
	Requests int
	// Servers is how many of them had a request counted: a server whose
	// one request was never sent answered nothing (fresh user try 27 F2:
	// "2 answered by the 2 servers the signal cut" of one server's 2).
	Servers int
}

// splitKept is the one split of the fleet's count (Each's kept, read from
// the ledger's fates) into the rows' requests and the cut servers' share,
// for every per-server view (MeasureAll, CheckAcross): every count the
// report prints comes from it.
func splitKept(kept []int, isCut func(i int) bool) (rows int, cut CutShare) {
	for i, n := range kept {
		switch {
		case !isCut(i):
			rows += n
		case n > 0:
			cut.Requests += n
			cut.Servers++
		}
	}
	return rows, cut
}

// View is the per-server view of one collection.
type View struct {
	Target apiclient.Target
	// Servers are the rows: every server of the fleet, or, when the run
	// was cut (Interrupted), those measured before the cut; Of is how
	// many the fleet has. The verdict is drawn from the rows only.
	Servers     []*Server
	Of          int
	Interrupted bool
	Verdict     Verdict
	// Requests are the rows' requests; Cut, those of the servers the
	// signal cut (MeasureAll), in no row.
	Requests int
	Cut      CutShare
	// Duration is the view's wall time: every server's measurement, at
	// most FanOutWidth at a time, pacing included (adversary try 20 #10:
	// the longest server's time said 10 s of 64 servers measured in four
	// turns of 16, 40 s). Each server's own time is Server.Millis.
	Duration time.Duration
}

// ObserveOptions configure the per-server view of one collection.
type ObserveOptions struct {
	// Budget paces every server's requests together (--qps);
	// MaxPerServer is each server's own --max-requests (0 = unlimited).
	Budget       *apiclient.Budget
	MaxPerServer int
	Measure      MeasureOptions
	// FromRV is the reconnect RV the verdict judges (0: the newest current RV).
	FromRV uint64
}

// Observe measures every server of f for t and decides the verdict.
func Observe(ctx context.Context, f *Fleet, t apiclient.Target, o ObserveOptions) *View {
	v := &View{Target: t, Of: len(f.Members)}
	start := time.Now()
	v.Servers, v.Requests, v.Cut = MeasureAll(ctx, f, t, o.Budget, o.MaxPerServer, o.Measure)
	v.Duration = time.Since(start)
	v.Interrupted = apiclient.Cut(ctx)
	v.Verdict = Decide(v.Servers, o.FromRV)
	return v
}
