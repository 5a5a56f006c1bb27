package apiclient

import (
	"context"
	"errors"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sort"
	"sync"
	"time"
)

// Ledger is the one account of what a run took from the API server(s):
// every request the transport sent (meter; discovery, /version and
// /metrics included), and every byte of every answer as it was read, a
// watch's as they stream. The bytes are the decoded body bytes the plugin
// read: a gzip-compressed answer counts its uncompressed size, headers are
// not counted. A Ledger is safe for concurrent use; the nil Ledger counts
// nothing.
type Ledger struct {
	mu       sync.Mutex
	requests int
	bytes    int64
	byKind   map[BodyKind]*KindCost
	failures []*entry
	observe  func(Entry)
	// open are the requests counted whose line has not been shown yet:
	// Settle shows them, so that every request counted is shown once.
	open map[*entry]struct{}
	// documents are the discovery documents of this run, failed or
	// whole (DiscoveryOnce).
	documents documents
	// started is when the run began (the ledger is the run's).
	started time.Time
	// run is the run's context (CutBy), and cut the requests its cut
	// ended (Cost.Cut).
	run context.Context
	cut int
	// waits is the run's stopwatch, whose retry waits Cost says.
	waits *Stopwatch
	// answers counts, per host:port, the requests of this run that got
	// an answer (a status) from it, and when the last did (AnswersFrom).
	answers map[string]*AnswerMark
}

// NewLedger starts an empty account, at the start of a run.
func NewLedger() *Ledger {
	return &Ledger{byKind: map[BodyKind]*KindCost{}, open: map[*entry]struct{}{}, started: time.Now()}
}

// Elapsed is the run's wall time so far: from its start, every wait in it
// (a server's answer, --qps pacing, the fan-out's turns, a side read)
// included. It is the one time a run's summary line says ("in 40.14s",
// the report's "ms"): never the longest server's nor a part's (adversary
// try 20 #10: 10.01s said of a run of 40 s over 64 servers, 16 at a
// time).
func (l *Ledger) Elapsed() time.Duration {
	if l == nil || l.started.IsZero() {
		return 0
	}
	return time.Since(l.started)
}

// Cost is the account of a run as reports carry it (-o json|yaml: "cost").
type Cost struct {
	// Requests is every request sent, answered or not: each time net/http
	// sent one again by itself (Entry.Sent) is one more. One the plugin
	// cancelled before it had a connection was not sent (Entry.NotSent).
	Requests int `json:"requests"`
	// Bytes is every body byte read, decoded (gzip is not measured).
	Bytes int64 `json:"bytes"`
	// ByKind splits both by what was asked: list, watch, object, version,
	// metrics, discovery.
	ByKind map[BodyKind]KindCost `json:"byKind,omitempty"`
	// Cut counts the requests of Requests that the signal cut (CutBy):
	// sent, so counted, but no answer of the run's (cutshare.go).
	Cut int `json:"cut,omitempty"`
	// RetryWait is the retry policy's waits before requests sent again
	// (retrywait.go): the plugin's own, said apart from its requests.
	RetryWait *RetryWait `json:"retryWait,omitempty"`
}

// KindCost is the share of one kind of request.
type KindCost struct {
	Requests int   `json:"requests"`
	Bytes    int64 `json:"bytes"`
	// Resent counts the sends of Requests that net/http made by itself
	// (Entry.Sent): a report whose rows count the plugin's requests says
	// them apart, never in one count and out of another (adversary try
	// 35 F1).
	Resent int `json:"resent,omitempty"`
}

// Entry is one request, as -v shows it.
type Entry struct {
	Method string
	// URL is the whole request URL, redacted.
	URL  string
	Kind BodyKind
	// Status is the HTTP status (0: no answer came).
	Status int
	// Bytes read of the body so far.
	Bytes int64
	// Headers is how long the answer's headers took; Duration, the whole
	// request until its body ended or was closed.
	Headers, Duration time.Duration
	// Err is why the request or its body failed (nil: it completed, or
	// the plugin closed it).
	Err error
	// Open is true for the line of a watch whose answer began: the
	// request goes on, and a second entry says how it ended.
	Open bool
	// EOF: the body was read to its end (else, without Err, the plugin
	// closed it).
	EOF bool
	// Answer is the Status of an error answer as the plugin read it (the
	// server's own words; nil until its body was read): client-go's
	// discovery keeps only a generic text of its own (Result.Raw).
	Answer *metav1.Status
	// Unfinished: the run ended before the request did (Settle): a watch
	// still open, or an answer whose body nobody read or closed (client-go's
	// discovery cache drops a 304's, answering from its copy).
	Unfinished bool
	// Sent is how many times net/http sent the request (Sent.Again): more
	// than once, each send is counted in the cost.
	Sent Sent
	// Cancelled: the plugin cancelled the request's context (not its
	// deadline: context.Canceled) before the request ended, as a run does
	// to the requests it no longer needs when a step fails or it stops
	// (CancelledWords). No answer was due: it is not the server's.
	Cancelled bool
}

// CancelledWords is what a -v line says of a request the plugin cancelled
// (Cancelled; "" for any other): never "no answer", which would blame a
// server that may have answered at once.
func (e Entry) CancelledWords() string {
	switch {
	case !e.Cancelled:
		return ""
	case e.Status != 0:
		return "cancelled by the plugin (the run stopped) before its body ended"
	case e.NotSent():
		return "cancelled by the plugin (the run stopped) before it was sent"
	}
	return "cancelled by the plugin (the run stopped) before its answer came"
}

// NotSent: the plugin cancelled the request before net/http got it a
// connection (TCP, and TLS where asked, never completed: a server that
// accepts and never answers), so no byte of it reached a server. It is
// the one test of that fate (noteFate): such a request is in no count of
// requests (the cost, a row's, a server's) and is no cut one, and its -v
// line says "before it was sent" (user try 24 F3: -v said not sent, the
// cost counted it and as cut).
func (e Entry) NotSent() bool {
	return e.Cancelled && e.Status == 0 && e.Sent.Times == 0
}

// Observe calls f with every request as it completes, and with every
// watch as its answer begins (Entry.Open): the -v lines. f must be quick
// and safe for concurrent calls. Every request counted reaches f once as
// completed (not Open): when it completes, or at Settle.
func (l *Ledger) Observe(f func(Entry)) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.observe = f
	l.mu.Unlock()
}

// Settle ends the account of a run: every request counted whose line was
// not shown yet (its body neither read to its end nor closed, or a watch
// still open) is shown now, marked Unfinished. After Settle, the requests
// shown equal the requests counted.
func (l *Ledger) Settle() {
	if l == nil {
		return
	}
	l.mu.Lock()
	open := make([]*entry, 0, len(l.open))
	for en := range l.open {
		open = append(open, en)
	}
	l.mu.Unlock()
	sort.Slice(open, func(i, j int) bool { return open[i].start.Before(open[j].start) })
	for _, en := range open {
		en.settle()
	}
}

// Cost is the account so far.
func (l *Ledger) Cost() Cost {
	if l == nil {
		return Cost{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c := Cost{Requests: l.requests, Bytes: l.bytes, ByKind: map[BodyKind]KindCost{}, Cut: l.cut, RetryWait: retryWait(l.waits)}
	for k, v := range l.byKind {
		c.ByKind[k] = *v
	}
	return c
}

// maxFailures bounds what a ledger keeps of failed requests.
const maxFailures = 32

// Failures are the first requests of kind k that failed (no answer, an
// HTTP status of 400 or more, or a body that broke), in order. Discovery
// is read through caches that keep such failures to themselves; the
// ledger does not.
func (l *Ledger) Failures(k BodyKind) []Entry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Entry
	for _, en := range l.failures {
		en.mu.Lock()
		e := en.e
		en.mu.Unlock()
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// HeadsWithoutBody are the requests whose answer's status came and whose
// body did not end (still coming, or broken), in the order they were
// sent: what a run whose time ran out was still reading, so that it says
// "the answer came, its body did not" and not "no answer".
func (l *Ledger) HeadsWithoutBody() []Entry {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	type sent struct {
		start time.Time
		e     Entry
	}
	var out []sent
	for _, en := range l.failures {
		en.mu.Lock()
		e := en.e
		en.mu.Unlock()
		if e.Status != 0 && e.Err != nil {
			out = append(out, sent{time.Time{}, e}) // failures come first: they were sent earlier
		}
	}
	for en := range l.open {
		en.mu.Lock()
		if en.e.Status != 0 {
			out = append(out, sent{en.start, en.e})
		}
		en.mu.Unlock()
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	es := make([]Entry, len(out))
	for i, s := range out {
		es[i] = s.e
	}
	return es
}

// Kinds lists the kinds of a Cost in a stable order.
func (c Cost) Kinds() []BodyKind {
	ks := make([]BodyKind, 0, len(c.ByKind))
	for k := range c.ByKind {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// entry is one request being counted.
type entry struct {
	l     *Ledger
	start time.Time
	// ctx is the request's (Cancelled).
	ctx  context.Context
	mu   sync.Mutex
	e    Entry
	done bool
	// mark is what its server answered this run (AnswersFrom), kept
	// under the ledger's lock: set once the answer came.
	mark *AnswerMark
}

// begin counts one request sent with ctx.
func (l *Ledger) begin(ctx context.Context, method, url string, k BodyKind) *entry {
	if l == nil {
		return nil
	}
	if t, ok := ctx.Value(requestTallyKey{}).(*RequestTally); ok {
		t.n.Add(1)
	}
	l.mu.Lock()
	l.requests++
	kc := l.byKind[k]
	if kc == nil {
		kc = &KindCost{}
		l.byKind[k] = kc
	}
	kc.Requests++
	en := &entry{l: l, start: time.Now(), ctx: ctx, e: Entry{Method: method, URL: url, Kind: k}}
	l.open[en] = struct{}{}
	l.mu.Unlock()
	return en
}

// sent records that net/http sent the request (again): every send after
// the first is one more request of the account.
func (en *entry) sent(s Sent) {
	if en == nil {
		return
	}
	en.mu.Lock()
	// begin counted the first send.
	again := max(s.Times, 1) - max(en.e.Sent.Times, 1)
	if s.Times > en.e.Sent.Times {
		en.e.Sent = s
	}
	kind := en.e.Kind
	en.mu.Unlock()
	if again <= 0 {
		return
	}
	l := en.l
	l.mu.Lock()
	l.requests += again
	l.byKind[kind].Requests += again
	l.byKind[kind].Resent += again
	l.mu.Unlock()
}

// answered records the status of the answer; a watch's begins its stream.
func (en *entry) answered(status int) {
	if en == nil {
		return
	}
	en.mu.Lock()
	en.e.Status, en.e.Headers = status, time.Since(en.start)
	open := en.e.Kind == KindWatch && status < 300
	e := en.e
	en.mu.Unlock()
	en.l.heardAnswer(en, e.URL)
	if open {
		e.Open = true
		en.l.emit(e)
	}
}

// add counts n bytes read of the body.
func (en *entry) add(n int64) {
	if en == nil || n == 0 {
		return
	}
	en.mu.Lock()
	en.e.Bytes += n
	en.mu.Unlock()
	l := en.l
	l.mu.Lock()
	l.bytes += n
	l.byKind[en.e.Kind].Bytes += n
	if en.mark != nil {
		// A body still coming (a watch's events) is the server heard
		// from (fresh user try 52 F2: "the last at" the watch's answer,
		// while its events came for 8 s more).
		en.mark.Last = time.Now()
	}
	l.mu.Unlock()
}

// finish completes the request once: its body ended (io.EOF), failed or
// was closed (nil), or no answer came (err).
func (en *entry) finish(err error) {
	if en == nil {
		return
	}
	en.mu.Lock()
	if en.done {
		en.mu.Unlock()
		return
	}
	en.done = true
	if err == io.EOF {
		en.e.EOF, err = true, nil
	}
	en.e.Err, en.e.Duration = err, time.Since(en.start)
	en.e.Cancelled = errors.Is(err, context.Canceled) && en.cancelled()
	e := en.e
	en.mu.Unlock()
	en.noteFate(e)
	en.l.mu.Lock()
	delete(en.l.open, en)
	if (err != nil || e.Status >= 400) && len(en.l.failures) < maxFailures {
		en.l.failures = append(en.l.failures, en)
	}
	en.l.mu.Unlock()
	en.l.emit(e)
}

// answer records the Status an error answer's body was read as.
func (en *entry) answer(st *metav1.Status) {
	if en == nil {
		return
	}
	en.mu.Lock()
	en.e.Answer = st
	en.mu.Unlock()
}

// settle completes a request the run left unfinished (Settle).
func (en *entry) settle() {
	en.mu.Lock()
	if en.done {
		en.mu.Unlock()
		return
	}
	en.done = true
	en.e.Unfinished, en.e.Duration = true, time.Since(en.start)
	// A request still waiting for its answer when the run ended: the
	// run had cancelled it, and net/http had not returned yet.
	en.e.Cancelled = en.e.Status == 0 && en.cancelled()
	e := en.e
	en.mu.Unlock()
	en.noteFate(e)
	en.l.mu.Lock()
	delete(en.l.open, en)
	en.l.mu.Unlock()
	en.l.emit(e)
}

// cancelled: the request's context was cancelled, before its deadline (a
// time bound is a timeout, DeadlineError, not a cancel).
func (en *entry) cancelled() bool {
	if en.ctx == nil || !errors.Is(en.ctx.Err(), context.Canceled) {
		return false
	}
	var late *DeadlineError
	if errors.As(en.e.Err, &late) {
		return false
	}
	deadline, ok := en.ctx.Deadline()
	return !ok || time.Now().Before(deadline)
}

func (l *Ledger) emit(e Entry) {
	l.mu.Lock()
	f := l.observe
	l.mu.Unlock()
	if f != nil {
		f(e)
	}
}
