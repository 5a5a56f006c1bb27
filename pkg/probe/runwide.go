package probe

import (
	"context"
	"sort"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// What an --all run relies on (checked on every cell of the matrix by
// test/e2e/matrix's probe --all check, and across resources and a CRD by
// test/e2e/probe TestProbeAllSharesOneCurrentRV): every resource the
// kube-apiserver serves itself (the built-in groups, and the groups of
// CRDs) is stored in one storage whose revision is every object's RV, so
// one consistent list gives the current RV of all of them. An aggregated
// API server has RVs of its own (test/e2e/aggregated): its resources are
// probed with their own current RV. Which groups are whose is read from
// the APIServices (one list, metadata only, only when some group is not
// built-in): the kube-aggregator labels the ones it serves itself
// kube-aggregator.kubernetes.io/automanaged (built-in groups and CRDs);
// an APIService without that label is an aggregated server's. A resource
// stored in another etcd (--etcd-servers-overrides) cannot be told from
// the client side.

// apiServicesGVR is the APIService collection.
var apiServicesGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// automanagedLabel marks the APIServices the kube-aggregator registers for
// the groups the kube-apiserver serves itself ("onstart": built-in,
// "true": a CRD's group).
const automanagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// Where the current RV of a row comes from (Result.CurrentFrom).
const (
	// CurrentOwn: the row's own consistent list (a group of RVs of its
	// own, a row searched in full, or one whose window was past the
	// run's RV).
	CurrentOwn = "own"
	// CurrentRun: the run's one read (RunWide.Current), the row that made
	// it included.
	CurrentRun = "run"
)

// RunWide is the current RV an --all run shares between the resources of
// the cluster's own revision.
type RunWide struct {
	// Current is that RV (0: not read yet: no full probe of such a
	// resource succeeded), From the resource whose consistent list read it,
	// At when.
	Current uint64    `json:"currentResourceVersion,string,omitempty"`
	From    string    `json:"from,omitempty"`
	At      time.Time `json:"at,omitzero"` // absent when not read
	// Reads counts the reads of it: 1, plus one for each resource whose
	// window was found past it (the run's RV was behind, and that
	// resource's own consistent list read it anew).
	Reads int `json:"reads"`
	// Groups says how the groups that share it were told apart: "built-in"
	// (every group is), "apiservices" (the automanaged label), or why the
	// APIServices could not be read (then only the built-in groups share it).
	Groups string `json:"groups"`
	// Own lists the groups probed with a current RV of their own (aggregated
	// APIs, or groups not known to share the revision).
	Own []string `json:"ownCurrent,omitempty"`
	// History is every value the run's RV took, in order (Current is the
	// last): a row shares the value it was probed with, which is an older
	// one when the cluster wrote during the run (fresh user try 46 F2:
	// "current RV 668 shared by 61 rows", 19 of which had 666).
	History []RunRead `json:"history,omitempty"`
}

// RunRead is one value of the run's current RV: the RV, the resource whose
// consistent list read it, and when.
type RunRead struct {
	Current uint64    `json:"currentResourceVersion,string"`
	From    string    `json:"from"`
	At      time.Time `json:"at"`
}

type runWide struct {
	RunWide
	// shares: the group versions beside the built-in groups
	// (serverinfo.BuiltInGroup; APIService names, <version>.<group>) that
	// share its revision.
	shares map[string]bool
}

// newRunWide tells the groups that share the cluster's revision: the
// built-in ones, and the group versions whose APIService is automanaged
// (one list of APIServices under b, only when some group is not built-in).
func newRunWide(ctx context.Context, c *apiclient.Client, resources []apiclient.Resource, b *apiclient.Budget) *runWide {
	r := &runWide{shares: map[string]bool{}, RunWide: RunWide{Groups: "built-in"}}
	others := false
	for _, res := range resources {
		if !serverinfo.BuiltInGroup(res.GVR.Group) {
			others = true
			r.shares[apiServiceName(res.GVR.GroupVersion())] = false
		}
	}
	if others {
		r.Groups = "apiservices"
		page, err := listing.List(ctx, c, apiclient.Target{Resource: apiclient.Resource{GVR: apiServicesGVR}}, listing.PageOptions{Budget: b})
		if err != nil {
			r.Groups = "built-in only: the APIServices could not be read (" + apiclient.FailureWords("list", apiServicesGVR.Resource, err) + "), so the other groups are probed with their own current RV"
		} else {
			for _, it := range page.Items {
				if _, asked := r.shares[it.Name]; asked && it.Labels[automanagedLabel] != "" {
					r.shares[it.Name] = true
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, res := range resources {
		if g := res.GVR.GroupVersion(); !r.sharesRevision(g) && !seen[g.String()] {
			seen[g.String()] = true
			r.Own = append(r.Own, g.String())
		}
	}
	sort.Strings(r.Own)
	return r
}

// sharesRevision: the group version is served by the kube-apiserver
// itself, from the one storage.
func (r *runWide) sharesRevision(gv schema.GroupVersion) bool {
	return serverinfo.BuiltInGroup(gv.Group) || r.shares[apiServiceName(gv)]
}

// apiServiceName is the APIService of a group version: <version>.<group>.
func apiServiceName(gv schema.GroupVersion) string { return gv.Version + "." + gv.Group }

// probe measures one row: in full (its own current RV) for a group of its
// own or until the run's RV is read, else by one watch from RV 1.
func (r *runWide) probe(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options) *Result {
	if !r.sharesRevision(t.Resource.GVR.GroupVersion()) {
		w := Run(ctx, c, t, o)
		w.CurrentFrom = CurrentOwn
		return w
	}
	return r.fast(ctx, c, t, o)
}

// adopt keeps the newest current RV known; first says it is the run's
// read (counted), not a newer RV another row's own list saw.
func (r *runWide) adopt(rv uint64, t apiclient.Target, counted bool) {
	if counted {
		r.Reads++
	}
	if rv > r.Current {
		r.Current, r.From, r.At = rv, t.Resource.Name(), time.Now()
		r.History = append(r.History, RunRead{Current: rv, From: r.From, At: r.At})
	}
}

// fast is one watch from RV 1 against the run's current RV: it starts (the
// window reaches RV 1), or the watch cache names the oldest RV (the bound,
// proven by two more watches with --verify). Any other 410 falls back to
// the full search, this watch as its first probe.
func (r *runWide) fast(ctx context.Context, c *apiclient.Client, t apiclient.Target, o Options) (w *Result) {
	b := o.Search.Budget
	used, start := b.Used(), time.Now()
	ctx, sw := apiclient.StartStopwatch(ctx) // the --qps pacing left out
	defer func() {
		w.Started = start
		w.Requests, w.Duration = sw.Kept(b.Used() - used)
	}()
	w = &Result{Target: t, Current: r.Current, CurrentRaw: strconv.FormatUint(r.Current, 10), CurrentFrom: CurrentRun}
	if r.Current == 0 {
		// The run's one read of the current RV, by the first row that
		// shares it (a failure is that row's, and the next row tries).
		cur, raw, _, err := ReadCurrent(ctx, c, t, listing.CurrentOptions{Budget: b, Retry: o.Search.Retry})
		w.CurrentRaw = raw
		if err != nil {
			w.CurrentFrom = CurrentOwn
			w.Err = err
			return w
		}
		// Its list is the run's one read (RunWide.From names it): its
		// RV is the run's, as every other such row's is (fresh user try
		// 14: "own", which marks a group of RVs of its own in JSON).
		r.adopt(cur, t, true)
		w.Current = cur
	}
	o.Try.Budget = b
	watch := adaptiveProbe(func(ctx context.Context, rv uint64, po TryOptions) Try {
		return TryWatch(ctx, c, t, rv, po)
	}, o.Try, 0, o.slowest)
	watch = confirmedWatch(watch, c, t, o, w.Current)
	sr := &SearchResult{Current: w.Current, FirstSucceeding: w.Current}
	w.Search = sr
	first, err := sr.attempt(ctx, watch, 1, o.Search)
	if err != nil {
		sr.Err, w.Err = err, err
		sr.settle()
		return w
	}
	switch {
	case first.Outcome == OutcomeOK:
		sr.Oldest, sr.Found, sr.FirstSucceeding = 1, true, 1
	case first.Source == SourceWatchCache && first.OldestNamed > 1:
		y := first.OldestNamed
		sr.Oldest, sr.Found = y, true
		sr.LastFailing, sr.FirstSucceeding, sr.LowerBoundFromServer = y-1, y, true
	default:
		// Storage, or a 410 not recognized: the full search.
		o.first = &first
		full := Run(ctx, c, t, o)
		full.CurrentFrom = CurrentOwn
		if full.Current > 0 {
			r.adopt(full.Current, t, false)
		}
		return full
	}
	sr.settle()
	if o.Verify {
		if w.Verify, w.Err = verify(ctx, sr.Oldest, watch, watch, o.Search); w.Err != nil {
			return w
		}
	}
	// A window past the run's RV (the cluster wrote since it was read):
	// this resource's own current RV, read anew (settleCurrent).
	reread, err := settleCurrent(ctx, c, t, w, o.Search)
	if reread {
		r.Reads++
		w.CurrentFrom = CurrentOwn
		if err == nil {
			r.adopt(w.Current, t, false)
		}
	}
	w.Err = err
	return w
}
