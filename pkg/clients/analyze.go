package clients

import (
	"strings"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// Options tune an analysis.
type Options struct {
	// BySourceIP tells clients apart by their first source IP too.
	BySourceIP bool
	// ServerVersion is the API server's version ("" when unknown).
	ServerVersion string
	// WatchCache is CacheOn, CacheOff or CacheUnknown ("": unknown);
	// WatchCacheSizes is the server's --watch-cache-sizes, parsed.
	WatchCache      string
	WatchCacheSizes map[string]int
	// Top is how many clients the timeline shows (default 5).
	Top int
	// MaxClients is how many clients are kept apart (default
	// DefaultMaxClients); the lightest of the others are folded.
	MaxClients int
}

// Analyzer accumulates events; Add them in log order, then Report. Its
// memory is bounded whatever the log: MaxClients clients of at most
// maxResources resources and maxBuckets+1 timeline buckets each, MaxOpen
// requests between their stages, the herd's relists of the last hour.
type Analyzer struct {
	o     Options
	v     version
	cache cacheConfig

	clients   map[clientKey]*clientState
	resources int // resource states of all clients, the fold's included
	byLoad    byLoad
	seq       int64
	fold      *clientState
	folded    foldedClients

	open  openRequests
	herd  herdState
	scale timelineScale
	rvs   reachedRVs

	requests int64
	levels   map[string]int64
	from, to time.Time
	// sizesMatched are the resources of --watch-cache-sizes that a request
	// of the log is for.
	sizesMatched map[string]bool
}

type clientKey struct {
	user, agent, ip string
	byIP            bool // Options.BySourceIP
}

// client is the key's Client, without counts.
func (k clientKey) client() Client {
	return Client{User: k.user, UserAgent: k.agent, SourceIP: k.ip, bySourceIP: k.byIP}
}

// name is how the key is printed (Client.Name).
func (k clientKey) name() string { return k.client().Name() }

type clientState struct {
	key       clientKey
	resources map[string]*resourceState
	buckets   buckets
	load      load
	touched   int64
	idx       int
}

// New starts an analysis; the version must have passed ValidateVersion.
func New(o Options) *Analyzer {
	if o.Top <= 0 {
		o.Top = 5
	}
	if o.MaxClients <= 0 {
		o.MaxClients = DefaultMaxClients
	}
	v, _ := parseVersion(o.ServerVersion)
	return &Analyzer{o: o, v: v, cache: newCacheConfig(o.WatchCache, o.WatchCacheSizes),
		clients: map[clientKey]*clientState{}, open: newOpenRequests(), levels: map[string]int64{}}
}

// Add takes one event (its stageTimestamp valid, as audit.Read gives
// them). A request counts once, at its last stage (ResponseComplete or
// Panic); earlier stages are held until then, and those never completed
// in the log count as open at the end.
func (a *Analyzer) Add(e *audit.Event) {
	t := e.StageTimestamp
	if a.from.IsZero() || t.Before(a.from) {
		a.from = t
	}
	if t.After(a.to) {
		a.to = t
	}
	a.scale.see(t)
	a.herd.advance(t)
	if !e.Done() {
		a.open.start(e, a.newRequest)
		return
	}
	r := a.open.end(e)
	if r == nil {
		r = a.newRequest(e)
	}
	code := e.Code()
	if code == 0 && e.Stage == audit.StagePanic {
		code = 500
	}
	a.answered(r, code, e.ResponseRV, t)
	a.finish(r, code, t, false, e.Items)
}

func (a *Analyzer) newRequest(e *audit.Event) *request {
	k := clientKey{user: e.User.Username, agent: e.UserAgent, byIP: a.o.BySourceIP}
	if a.o.BySourceIP && len(e.SourceIPs) > 0 {
		k.ip = e.SourceIPs[0]
	}
	r := &request{client: k, resource: resourceOf(e), verb: e.Verb, query: e.Query, received: e.RequestReceivedTimestamp, at: e.RequestReceivedTimestamp, level: levelOf(e.Level)}
	if res, _, _ := strings.Cut(r.resource, "/"); len(a.cache.sizes) > 0 {
		if _, ok := a.cache.sizes[strings.ToLower(res)]; ok {
			if a.sizesMatched == nil {
				a.sizesMatched = map[string]bool{}
			}
			a.sizesMatched[strings.ToLower(res)] = true
		}
	}
	if r.at.IsZero() {
		r.at = e.StageTimestamp
	}
	return r
}

// levelOf keeps the levels a server writes; anything else is one "other".
func levelOf(l string) string {
	switch l {
	case "None", "Metadata", "Request", "RequestResponse":
		return l
	}
	return "other"
}

// resourceOf names what a request was about: resource[.group][/subresource],
// or the path of a non-resource request; shown, so that no name from the
// log is taken for otherResources or a placeholder.
func resourceOf(e *audit.Event) string {
	if e.ObjectRef == nil || e.ObjectRef.Resource == "" {
		if e.Query.Path != "" {
			return shown(e.Query.Path, noResource)
		}
		return shown(e.RequestURI, noResource)
	}
	r := e.ObjectRef.Resource
	if e.ObjectRef.APIGroup != "" {
		r += "." + e.ObjectRef.APIGroup
	}
	if e.ObjectRef.Subresource != "" {
		r += "/" + e.ObjectRef.Subresource
	}
	return shown(r, noResource)
}

// Close ends the log: requests still open count as open (watches as open
// at the end, with the time they had lived so far), but those an earlier
// stage gave a code that refused them (reachedRead): they ended then,
// with it (a 401 is logged at ResponseStarted only).
func (a *Analyzer) Close() {
	a.open.each(func(r *request) {
		if !reachedRead(r.verb, r.code) {
			a.finish(r, r.code, r.codeAt, false, -1)
			return
		}
		a.finish(r, 0, a.to, true, -1)
	})
	a.herd.flush(time.Time{})
	a.herd.fold()
}

// lifetime is how long a request lived; known is false when the log does
// not give its received time, or gives one no request could have (after
// its end, or longer before it than maxLifetime).
type lifetime struct {
	d     time.Duration
	known bool
}

const maxLifetime = 30 * 24 * time.Hour

func (a *Analyzer) lifetimeOf(r *request, end time.Time) lifetime {
	if r.received.IsZero() || end.Before(r.received) || end.Sub(r.received) > maxLifetime {
		return lifetime{}
	}
	return lifetime{d: end.Sub(r.received), known: true}
}

// finish counts one request.
func (a *Analyzer) finish(r *request, code int, end time.Time, open bool, items int) {
	a.requests++
	a.levels[r.level]++
	c := a.client(r.client)
	defer a.touched(c)
	rs := a.resource(c, r.resource)
	c.load.requests++
	t := &rs.totals
	t.Requests++
	countCode(&t.Codes, code)
	if code == 410 {
		c.buckets.add(&a.scale, r.at, 2, 1)
	}
	q := r.query
	lived := a.lifetimeOf(r, end)
	switch r.verb {
	case "list":
		c.buckets.add(&a.scale, r.at, 0, 1)
		c.load.lists++
		mode := listMode(q)
		read := reachedRead(r.verb, code)
		from, _, _ := readFrom(a.v, a.cache, r.resource, mode, q.Limit > 0)
		switch {
		case !read:
		case from == fromStorage:
			t.StorageLists++
			c.load.storage++
		case from == fromUnknown:
			t.StorageUnknown++
		}
		if items >= 0 {
			if t.Objects == nil {
				t.Objects = new(int64)
			}
			*t.Objects += int64(items)
			c.load.objects += int64(items)
		}
		if mode == modeContinue {
			t.Lists.Continue++
			return
		}
		countListMode(&t.Lists, mode, q)
		a.patternList(c, r, rs, mode, read)
	case "watch":
		c.buckets.add(&a.scale, r.at, 1, 1)
		how := watchEnd(q, code, lived, open)
		if reachedRead(r.verb, code) && !open && watchStart(q) == modeExact && how == endAtOnce {
			// The sign of a 410 sent inside the stream (see patternWatch).
			c.buckets.add(&a.scale, r.at, 2, 1)
		}
		countWatch(&t.Watches, q, how, lived)
		a.patternWatch(c, r, rs, code, how, end)
	case "get":
		t.Gets++
	default:
		t.Other++
	}
}

func countCode(c *Codes, code int) {
	switch {
	case code == 410:
		c.Expired++
	case code == 504:
		c.TooLarge++
	case code == 429:
		c.Throttled++
	case code >= 500:
		c.Server++
	}
}
