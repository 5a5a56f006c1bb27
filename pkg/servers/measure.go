package servers

import (
	"context"
	"encoding/json"
	"errors"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/internal/text"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/metrics"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
)

// Server is what one API server answered for one collection.
type Server struct {
	// Endpoint is the host:port dialled; Index is its 1-based row.
	Endpoint string `json:"endpoint"`
	Index    int    `json:"index"`
	// CacheRV is the RV of a list with resourceVersion=0: what the server's
	// watch cache has seen (with the cache off, storage's current RV: then
	// it is no cache's, see WatchCache).
	CacheRV    uint64 `json:"cacheResourceVersion,omitempty,string"`
	CacheKnown bool   `json:"cacheKnown"`
	// WatchCache is whether this server has a watch cache for the
	// resource: on, off (its watches were answered by storage, or its
	// /metrics has no series for it: then the rv=0 list read storage,
	// which is always current) or unknown (nothing measured says);
	// WatchCacheWhy says what showed it.
	WatchCache    string `json:"watchCache"`
	WatchCacheWhy string `json:"watchCacheWhy,omitempty"`
	// CurrentRV is the RV of a consistent list: etcd's revision, the same
	// on every server of one etcd.
	CurrentRV    uint64 `json:"currentResourceVersion,omitempty,string"`
	CurrentKnown bool   `json:"currentKnown"`
	// Lag is CurrentRV - CacheRV, the cache RV read right after the
	// consistent list that asked the watch cache to catch up: 0 on a server
	// that follows etcd, more on one whose cache cannot (0 too when writes
	// came between the two reads). When the server's own consistent list
	// failed (a server cut off from etcd), it is measured against the
	// newest current RV of the others, and LagAgainst says so.
	Lag        uint64 `json:"lag"`
	LagKnown   bool   `json:"lagKnown"`
	LagAgainst string `json:"lagAgainst,omitempty"`
	// The watch window (probe only): a watch from Oldest still starts.
	// Oldest is a JSON string, as in "probe -o json" and every RV of the
	// API (docs/probe.md, docs/explain-error.md). Millis is the server's
	// time, less the client-side rate limiters' waits (--qps, shared by
	// every server of the run).
	Oldest      uint64  `json:"oldestResourceVersion,omitempty,string"`
	Width       uint64  `json:"width,omitempty"`
	WindowKnown bool    `json:"windowKnown"`
	Source      string  `json:"source,omitempty"`
	Requests    int     `json:"requests"`
	Millis      float64 `json:"ms"`
	// RetryWait is this server's own retries and their waits, left out of
	// Millis: servers are measured at the same time, so the run's sum of
	// waits is no server's (adversary try 28 F3: a row said TIME 49ms
	// and nothing of its 2 s of Retry-After).
	RetryWait *apiclient.RetryWait `json:"retryWait,omitempty"`
	// Reason and Error explain a server that could not be measured (or
	// only partly): Unreachable, TLS, Forbidden, NoAnswer... Hint, the fix
	// in words, is render's (it names the plugin's flags): this package
	// leaves it empty and render fills it in from Reason.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Err is the first error itself, for the exit code; failedRead the
	// read it came from (FailedRead).
	Err        error `json:"-"`
	failedRead Read

	// Window is the full probe of this server (for -v); nil for list.
	Window *probe.Result `json:"-"`
	// Metrics is this server's own watch-cache metrics around its probe
	// (probe --servers --metrics): each server has its own watch cache.
	Metrics *metrics.Report `json:"metrics,omitempty"`
}

// Answered reports whether the server answered at least one read.
func (s *Server) Answered() bool { return s.CacheKnown || s.CurrentKnown }

// Mode is what is measured per server.
type Mode int

const (
	// ModeRVs reads the cache RV and the current RV: two lists of one item.
	ModeRVs Mode = iota
	// ModeWindow also searches the watch window (a whole probe).
	ModeWindow
)

// MeasureOptions configure the measure of one server.
type MeasureOptions struct {
	Mode   Mode
	Window probe.Options // Search.Budget is replaced by the server's own
	// Metrics reads the server's /metrics before and after its probe (two
	// more requests from its budget).
	Metrics bool
	// Known is what the run knows already of one server's watch cache for
	// the resource; a row whose own reads did not tell takes it.
	Known KnownCache
}

// KnownCache is what a run read of the kubeconfig's server's watch cache
// for the resource (its facts: serverinfo), for the row of the endpoint
// that server is dialled at: an rv=0 list there is storage's RV, not a
// cache's, where it has none (fresh user try 44 F1: explain-error --check
// --endpoints gave a server without a watch cache a CACHE RV, beside its
// own "no watch cache" check). State is CacheOn or CacheOff ("": nothing
// known); Why says what showed it.
type KnownCache struct {
	Endpoint, State, Why string
}

// KubeconfigCache is KnownCache of the kubeconfig's server (cfg's), at
// the address it is dialled at.
func KubeconfigCache(cfg *rest.Config, state, why string) KnownCache {
	return KnownCache{Endpoint: ownAddress(cfg.Host), State: state, Why: why}
}

// apply gives s the state known of it when its own reads did not tell.
func (k KnownCache) apply(s *Server) {
	if k.State != "" && k.Endpoint == s.Endpoint && (s.WatchCache == CacheUnknown || s.WatchCache == "") {
		s.WatchCache, s.WatchCacheWhy = k.State, k.Why
	}
}

// Measure reads one server: first its current RV (a consistent list, or a
// probe whose first request is one), then its cache RV. The order matters:
// a consistent list served by a watch cache first brings the cache up to
// etcd's revision (the cache asks etcd for a progress notification), so a
// server that follows etcd shows a lag of 0 and only a server whose cache
// cannot follow shows one. An idle resource's cache read first would lag
// by every write to other resources, for nothing. A server whose
// consistent list fails (cut off from etcd) still gets its cache RV read,
// which its watch cache answers on its own. b is this server's budget.
func Measure(ctx context.Context, c *apiclient.Client, t apiclient.Target, endpoint string, b *apiclient.Budget, o MeasureOptions) *Server {
	s := &Server{Endpoint: endpoint, Source: probe.SourceUnknown, WatchCache: CacheUnknown}
	// The server's time, not the --qps pacing it shares with the others
	// (apiclient.Stopwatch).
	ctx, sw := apiclient.StartStopwatch(ctx)
	defer func() {
		o.Known.apply(s)
		n, d := sw.Kept(b.Used()) // what the signal cut left out
		s.Requests, s.Millis = n, float64(d.Microseconds())/1000
		s.RetryWait = apiclient.RetryWaitOf(sw)
	}()
	if first := silentBefore(ctx, endpoint); first != nil {
		s.failAt(ReadNeither, &NotAskedError{First: first})
		return s
	}
	if o.Mode == ModeRVs {
		cur, _, _, err := probe.ReadCurrent(ctx, c, t, listing.CurrentOptions{Budget: b, Retry: o.Window.Search.Retry})
		if err != nil {
			s.failAt(ReadConsistent, err)
		} else {
			s.CurrentRV, s.CurrentKnown = cur, true
		}
	} else {
		wo := o.Window
		wo.Search.Budget = b
		var m0 *metrics.Reading
		if o.Metrics {
			m0 = metrics.ReadUnder(ctx, c, b)
		}
		w := probe.Run(ctx, c, t, wo)
		if o.Metrics {
			s.Metrics = probe.MetricsReport(m0, metrics.ReadUnder(ctx, c, b), w)
		}
		s.Window = w
		if probe.NotOneServers(w.Err) {
			// Its answers are not one server's (RVs that went back, a
			// broken contract): no RV of it is a number, and the verdict
			// over servers leaves it out as one that answered nothing
			// (adversary try 21 F4: "every server serves up to the
			// current RV" and "Largest lag: 0" from such a row). Its
			// rv=0 list would be one more answer of the same address.
			s.failAt(ReadConsistent, w.Err)
			return s
		}
		if sr := w.Search; sr != nil {
			s.CurrentRV, s.CurrentKnown, s.Source = sr.Current, true, sr.Source
			if sr.Found {
				s.Oldest, s.Width, s.WindowKnown = sr.Oldest, sr.Width(), true
			}
		}
		s.setWatchCache(t.Resource.Name())
		if w.Err != nil {
			read := ReadConsistent
			if s.CurrentKnown {
				read = ReadWindow
			}
			s.failAt(read, w.Err)
		}
	}
	if f := diagnose.ClassifyFailure(s.Err); s.Err != nil && (f == diagnose.FailureUnreachable || f == diagnose.FailureTLS || f == diagnose.FailureUnauthorized || apiclient.NoConnection(s.Err) || apiclient.ClosedBeforeAnswer(s.Err) || errors.Is(s.Err, context.Canceled)) {
		// Nothing else will get through. (A server that answered no
		// consistent list in time may be cut off from etcd, and its
		// cache is read next; one that made no connection at all would
		// take the whole time again: fresh user try 15, 20 s for 10.)
		return s
	}
	if errors.Is(s.Err, probe.ErrOpaqueRV) {
		return s
	}
	if probe.NotOneServers(s.Err) {
		// Its consistent list broke the List contract, or its RVs went
		// back: its rv=0 list is one more answer of the same address,
		// and no CACHE RV, lag or verdict is drawn from it, as no window
		// is above (adversary try 41 F1: list --endpoints gave such a
		// row CACHE RV 70 and LAG 30, and three verdict lines).
		return s
	}
	if apiclient.GaveNoAnswer(s.Err) {
		// Cut off from etcd, or silent: a short wait tells (silent.go).
		s.readCacheAfterNoAnswer(ctx, c, t, b, endpoint, sw.Elapsed())
	} else if err := s.readCache(ctx, c, t, b); err != nil {
		s.failAt(ReadCache, err)
	}
	if s.CurrentKnown {
		s.setLag(s.CurrentRV, "")
	}
	return s
}

// Whether a server has a watch cache for the resource (Server.WatchCache).
const (
	CacheOn      = "on"
	CacheOff     = "off"
	CacheUnknown = "unknown"
)

// setWatchCache tells from what was measured whether the server has a
// watch cache for the resource: who answered its probes' 410s (a watch
// always goes to the watch cache where there is one, so storage's 410
// means there is none), else its own /metrics (no series: none, for a
// resource it serves itself: serverinfo.Serves; of another, such as an
// aggregated API's, its /metrics shows none either way). resource is the
// resource's name ("resource.group").
func (s *Server) setWatchCache(resource string) {
	group, _ := serverinfo.SplitName(resource)
	found := serverinfo.Unknown
	if s.Metrics != nil && s.Metrics.Found() {
		found = serverinfo.Yes
	}
	own, why := serverinfo.Serves(resource, group, found, serverinfo.Unknown)
	switch src := s.Source; {
	case src == probe.SourceStorage:
		s.WatchCache, s.WatchCacheWhy = CacheOff, "its probes' 410s came from storage: watches go to the watch cache where there is one"
	case src == probe.SourceWatchCache:
		s.WatchCache, s.WatchCacheWhy = CacheOn, "its watch cache answered the probes' 410s"
	case s.Metrics != nil && s.Metrics.Note == "" && !s.Metrics.Found() && len(s.Metrics.Unmeasured) == 0 && own != serverinfo.Yes:
		s.WatchCache, s.WatchCacheWhy = CacheUnknown, "whether it serves the resource itself is not known: "+why
	case s.Metrics != nil && s.Metrics.Note == "" && !s.Metrics.Found() && len(s.Metrics.Unmeasured) == 0:
		// (A series the server gave and that could not be measured is
		// not "no series".)
		s.WatchCache, s.WatchCacheWhy = CacheOff, "its /metrics has no watch-cache series for the resource"
	case s.Metrics != nil && s.Metrics.Found():
		s.WatchCache, s.WatchCacheWhy = CacheOn, "its /metrics has watch-cache series for the resource"
	default:
		s.WatchCache = CacheUnknown
	}
}

// readCache reads the cache RV: a list with resourceVersion=0, which the
// watch cache answers as it stands, without asking etcd; narrowed to one
// key, so that it costs one object, not the collection (cacherv.go).
func (s *Server) readCache(ctx context.Context, c *apiclient.Client, t apiclient.Target, b *apiclient.Budget) error {
	page, err := listCacheRV(ctx, c, t, b)
	if err != nil {
		return err
	}
	// The one rule of a measured RV (probe.StorageRV): "0" is no cache's
	// RV, nor a lag's base, but an answer in breach of the List contract.
	n, err := probe.StorageRV(page.ResourceVersion)
	if err != nil {
		return err
	}
	s.CacheRV, s.CacheKnown = n, true
	return nil
}

// setLag sets the lag against current when the cache RV is known.
func (s *Server) setLag(current uint64, against string) {
	if !s.CacheKnown {
		return
	}
	s.LagKnown, s.LagAgainst = true, against
	if current > s.CacheRV {
		s.Lag = current - s.CacheRV
	} else {
		s.Lag = 0
	}
}

// Reasons of a server's failure besides the diagnose.Failure classes.
const (
	ReasonBudgetExhausted = "BudgetExhausted" // its own request budget ran out
	ReasonOpaqueRV        = "OpaqueRV"        // the resource has no etcd revision
	ReasonInterrupted     = "Interrupted"
)

// fail records the first error of the server, in one word (Reason).
func (s *Server) fail(err error) {
	if s.Error != "" {
		return
	}
	s.Error, s.Err = diagnose.WithoutLibraryWords(text.OneLine(err.Error())), err
	switch {
	case errors.Is(err, apiclient.ErrBudgetExhausted):
		s.Reason = ReasonBudgetExhausted
		return
	case errors.Is(err, probe.ErrOpaqueRV):
		s.Reason = ReasonOpaqueRV
		return
	case errors.Is(err, context.Canceled):
		s.Reason = ReasonInterrupted
		return
	case probe.NotOneServers(err):
		s.Reason = probe.Reason(err) // RVsOutOfOrder, not "Other"
		return
	}
	f := diagnose.ClassifyFailure(err)
	if (f == diagnose.FailureOther || f == diagnose.FailureConnectionBroken) && diagnose.IsStreamReset(err) {
		// The request's timeout= parameter ran out on the server side
		// first: it resets the HTTP/2 stream (seen on v1.37.2 with a server
		// cut off from etcd). Same meaning as no answer in time.
		f = diagnose.FailureNoAnswer
	}
	s.Reason = string(f)
}

// MarshalJSON omits what the row's table shows unknown (adversary try 45
// F6): no lag beside lagKnown false (a "lag": 0 would read as a server
// that follows etcd), and no watchCache on a row never dialled.
func (s Server) MarshalJSON() ([]byte, error) {
	type plain Server // its fields, without this method
	out := struct {
		plain
		Lag        *uint64 `json:"lag,omitempty"`
		WatchCache string  `json:"watchCache,omitempty"`
	}{plain: plain(s), WatchCache: s.WatchCache}
	if s.LagKnown {
		out.Lag = &s.Lag
	}
	return json.Marshal(out)
}
