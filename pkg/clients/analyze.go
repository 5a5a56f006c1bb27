package clients

import (
	"time"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
	"github.com/watchrv/kubectl-watchrv/pkg/audit"
)

// Options tune an analysis.
type Options struct {
	// BySourceIP tells clients apart by their first source IP too.
	BySourceIP bool
	// ServerVersion is the API server's version ("" when unknown).
	ServerVersion string
	// Top is how many clients the timeline shows (default 5).
	Top int
}

// Analyzer accumulates events; Add them in log order, then Report.
type Analyzer struct {
	o       Options
	v       version
	clients map[clientKey]*clientState
	open    map[string]*request
	herd    herdState

	requests   int64
	levels     map[string]int64
	from, to   time.Time
	newestRV   uint64
	newestAt   time.Time
	timelineT0 time.Time
}

type clientKey struct{ user, agent, ip string }

type clientState struct {
	key       clientKey
	resources map[string]*resourceState
	minutes   map[int64]*[3]int64 // unix minute -> lists, watches, expired (see TimelineClient)
}

// request is what is kept of a request between its first and last stage.
type request struct {
	client   clientKey
	resource string
	verb     string
	query    audit.Query
	received time.Time
	level    string
}

// New starts an analysis; the version must have passed ValidateVersion.
func New(o Options) *Analyzer {
	if o.Top <= 0 {
		o.Top = 5
	}
	v, _ := parseVersion(o.ServerVersion)
	return &Analyzer{o: o, v: v, clients: map[clientKey]*clientState{}, open: map[string]*request{}, levels: map[string]int64{}}
}

// Add takes one event. A request counts once, at its last stage
// (ResponseComplete or Panic); earlier stages are held until then, and
// those never completed in the log count as open at the end.
func (a *Analyzer) Add(e *audit.Event) {
	t := e.StageTimestamp
	if !t.IsZero() {
		if a.from.IsZero() || t.Before(a.from) {
			a.from = t
		}
		if t.After(a.to) {
			a.to = t
		}
	}
	if !e.Done() {
		if _, ok := a.open[e.AuditID]; !ok {
			a.open[e.AuditID] = a.newRequest(e)
		}
		return
	}
	r := a.open[e.AuditID]
	if r != nil {
		delete(a.open, e.AuditID)
	} else {
		r = a.newRequest(e)
	}
	code := e.Code()
	if code == 0 && e.Stage == audit.StagePanic {
		code = 500
	}
	a.finish(r, code, e.StageTimestamp, false, e.Items)
}

func (a *Analyzer) newRequest(e *audit.Event) *request {
	k := clientKey{user: e.User.Username, agent: e.UserAgent}
	if a.o.BySourceIP && len(e.SourceIPs) > 0 {
		k.ip = e.SourceIPs[0]
	}
	received := e.RequestReceivedTimestamp
	if received.IsZero() {
		received = e.StageTimestamp
	}
	return &request{client: k, resource: resourceOf(e), verb: e.Verb, query: e.Query, received: received, level: e.Level}
}

// resourceOf names what a request was about: resource[.group][/subresource],
// or the path of a non-resource request.
func resourceOf(e *audit.Event) string {
	if e.ObjectRef == nil || e.ObjectRef.Resource == "" {
		if e.Query.Path != "" {
			return e.Query.Path
		}
		return e.RequestURI
	}
	r := e.ObjectRef.Resource
	if e.ObjectRef.APIGroup != "" {
		r += "." + e.ObjectRef.APIGroup
	}
	if e.ObjectRef.Subresource != "" {
		r += "/" + e.ObjectRef.Subresource
	}
	return r
}

// Close ends the log: requests still open count as open (watches as open
// at the end, with the time they had lived so far).
func (a *Analyzer) Close() {
	for id, r := range a.open {
		a.finish(r, 0, a.to, true, -1)
		delete(a.open, id)
	}
	a.herd.flush()
}

func (a *Analyzer) client(k clientKey) *clientState {
	c := a.clients[k]
	if c == nil {
		c = &clientState{key: k, resources: map[string]*resourceState{}, minutes: map[int64]*[3]int64{}}
		a.clients[k] = c
	}
	return c
}

// finish counts one request.
func (a *Analyzer) finish(r *request, code int, end time.Time, open bool, items int) {
	a.requests++
	a.levels[r.level]++
	c := a.client(r.client)
	rs := c.resources[r.resource]
	if rs == nil {
		rs = &resourceState{}
		c.resources[r.resource] = rs
	}
	min := r.received.Unix() / 60
	bucket := c.minutes[min]
	if bucket == nil {
		bucket = &[3]int64{}
		c.minutes[min] = bucket
	}
	t := &rs.totals
	t.Requests++
	countCode(&t.Codes, code)
	if code == 410 {
		bucket[2]++
	}
	q := r.query
	// The newest RV a request was answered for (a 504 for a future RV, or
	// a 410, says nothing about where the server is).
	if q.HasRV && code > 0 && code < 400 {
		if n, ok := rv.Parse(q.ResourceVersion); ok && n > a.newestRV {
			a.newestRV, a.newestAt = n, r.received
		}
	}
	switch r.verb {
	case "list":
		bucket[0]++
		mode := listMode(q)
		from, _ := readFrom(a.v, r.resource, mode, q.Limit > 0)
		switch from {
		case fromStorage:
			t.StorageLists++
		case fromUnknown:
			t.StorageUnknown++
		}
		if items >= 0 {
			if t.Objects == nil {
				t.Objects = new(int64)
			}
			*t.Objects += int64(items)
		}
		if mode == modeContinue {
			t.Lists.Continue++
			return
		}
		countListMode(&t.Lists, mode, q)
		a.patternList(c, r, rs, mode, code)
	case "watch":
		bucket[1]++
		if code < 400 && !open && watchMode(q) == modeExact && watchEnd(q, code, end.Sub(r.received), open) == endAtOnce {
			// The sign of a 410 sent inside the stream (see patternWatch).
			bucket[2]++
		}
		countWatch(&t.Watches, q, code, end.Sub(r.received), open)
		a.patternWatch(c, r, rs, code, end, open)
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

// listMode is the read mode of a list, as the API server decides it
// (apiserver delegator.ShouldDelegateList): a continue token first, then
// resourceVersionMatch, then the legacy exact form (a limit with
// resourceVersion=N and no match).
func listMode(q audit.Query) string {
	switch {
	case q.Continue:
		return modeContinue
	case q.ResourceVersionMatch == "Exact":
		return modeExact
	case q.ResourceVersionMatch == "NotOlderThan":
		return modeNotOlderThan
	case !q.HasRV:
		return modeUnset
	case q.ResourceVersion == "0":
		return modeZero
	case q.Limit > 0:
		return modeExact
	}
	return modeNotOlderThan
}

func countListMode(l *ListModes, mode string, q audit.Query) {
	l.Total++
	switch mode {
	case modeUnset:
		l.Unset++
	case modeZero:
		l.Zero++
	case modeExact:
		l.Exact++
	case modeNotOlderThan:
		l.NotOlderThan++
	}
	if q.Limit > 0 {
		l.Limit++
	}
}

// watchMode is a watch's start mode.
func watchMode(q audit.Query) string {
	switch {
	case q.SendInitialEvents:
		return "streaming"
	case !q.HasRV:
		return modeUnset
	case q.ResourceVersion == "0":
		return modeZero
	}
	return modeExact
}

func countWatch(w *WatchModes, q audit.Query, code int, lived time.Duration, open bool) {
	w.Total++
	switch watchMode(q) {
	case "streaming":
		w.Streaming++
	case modeUnset:
		w.Unset++
	case modeZero:
		w.Zero++
	default:
		w.Exact++
	}
	switch watchEnd(q, code, lived, open) {
	case endOpen:
		w.Open++
		return
	case endError:
		w.Error++
	case endTimedOut:
		w.TimedOut++
	case endAtOnce:
		w.AtOnce++
	default:
		w.Early++
	}
	s := lived.Seconds()
	ended := w.TimedOut + w.Early + w.AtOnce + w.Error
	if ended == 1 || s < w.MinSeconds {
		w.MinSeconds = s
	}
	if s > w.MaxSeconds {
		w.MaxSeconds = s
	}
	w.MeanSeconds += (s - w.MeanSeconds) / float64(ended)
}

// How a watch ended.
const (
	endOpen     = "open"
	endError    = "error"
	endTimedOut = "timed out"
	endAtOnce   = "at once"
	endEarly    = "early"
)

// watchEnd classifies a watch's end from its code and lifetime: the audit
// log records neither the events sent nor who closed the stream.
func watchEnd(q audit.Query, code int, lived time.Duration, open bool) string {
	switch {
	case open:
		return endOpen
	case code >= 400:
		return endError
	case q.TimeoutSeconds > 0 && lived >= time.Duration(q.TimeoutSeconds)*time.Second-time.Second:
		return endTimedOut
	case lived < time.Second:
		return endAtOnce
	}
	return endEarly
}
