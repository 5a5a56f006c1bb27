// Package probe finds how far back a watch can start: the oldest RV a
// watch from an exact RV still starts from, who answers 410 below it (the
// watch cache or etcd), and how the window moves over time. Every request
// goes through a budget (a count of requests and a rate), and each is one watch or
// list that is closed before the next.
package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/watchstream"
)

// Outcome is what one window probe (one watch request) proved.
type Outcome string

// Outcomes. Only OK and Expired say anything about the window; every other
// outcome is retried or stops the search, and never moves its bounds.
const (
	// OutcomeOK: the server accepted a watch from the RV (an event was
	// replayed, or the open watch stayed silent for the whole wait).
	OutcomeOK Outcome = "ok"
	// OutcomeExpired: a 410 Expired (or Gone): the RV is older than the window.
	OutcomeExpired Outcome = "expired"
	// OutcomeThrottled: a 429; retried after the server's Retry-After.
	OutcomeThrottled Outcome = "throttled"
	// OutcomeTransient: a 5xx, a network error, a stream that ended at once:
	// retried a few times with backoff.
	OutcomeTransient Outcome = "transient"
	// OutcomeFatal: an answer a retry cannot change (403, 401, 404, 400).
	OutcomeFatal Outcome = "fatal"
)

// Sources: who answered the 410 that bounds the window (see Answer).
const (
	SourceWatchCache = "watch-cache"
	// SourceStorage: etcd, or a shim such as kine: their 410 wordings are
	// the same, so the plugin never says which.
	SourceStorage = "storage"
	SourceMixed   = "mixed"
	SourceNone    = "none"
	SourceUnknown = "unknown"
)

// Try is one watch request of the search and what it proved.
type Try struct {
	ResourceVersion uint64        `json:"resourceVersion,string"`
	Outcome         Outcome       `json:"outcome"`
	Evidence        string        `json:"evidence"`
	Latency         time.Duration `json:"-"`
	LatencyMillis   float64       `json:"ms"`
	Code            int32         `json:"code,omitempty"`
	Message         string        `json:"message,omitempty"`
	// OldestNamed is the oldest RV the watch cache named in its 410
	// ("too old resource version: X (Y)" names Y); 0 when none was named.
	OldestNamed uint64 `json:"oldestNamed,omitempty,string"`
	// Inconsistent says why the 410's numbers cannot come from one
	// answer to this watch (diagnose's one consistency check: it names
	// another RV than the one asked, or an oldest at or below it); ""
	// when they can. Such a 410 names no oldest (OldestNamed 0): nothing
	// is drawn from its numbers (adversary try 27 F6).
	Inconsistent string `json:"inconsistent,omitempty"`
	// Source is watch-cache, storage or unknown (a wording the plugin does
	// not know) for an Expired outcome, from the wording.
	Source string `json:"source,omitempty"`
	// Silent is true when the watch was accepted and nothing arrived within
	// the wait: success without a replayed event.
	Silent bool `json:"silent,omitempty"`
	// RetryAfter is the server's Retry-After for a throttled outcome.
	RetryAfter time.Duration `json:"-"`
	// LostAt is the RV of the change a PrevKv=nil ERROR named
	// (modRevision): every watch from below it meets that lost change.
	LostAt uint64 `json:"lostAt,omitempty"`
	// ReadTo is the newest RV a drained watch (TryWatchThrough) delivered
	// without an error.
	ReadTo uint64 `json:"readTo,omitempty"`
	// EventRV is the RV of the event a watch replayed first (0 none, or
	// not a decimal RV): the server holds it (rvOrder).
	EventRV uint64 `json:"-"`
	// Confirmation are the requests sent to confirm this answer before it
	// was claimed (confirmStarts): the exact list at RV+1, and, when a
	// longer watch decided, the first, silent watch before it.
	Confirmation []Try `json:"confirmation,omitempty"`
	// MissedChangeRV is set when a watch from below an object's RV stayed
	// silent: the RV of the change it should have replayed. A server whose
	// watch cache has not seen that change yet answers this way.
	MissedChangeRV uint64 `json:"-"`
	// notSent is why the request has no answer: it was never sent (the
	// budget refused it), or the run was cut before its answer came
	// (cutUnanswered). Such a Try is no answer and no probe.
	notSent error
	// unbounded is an answer past the plugin's bounds (a body over its
	// cap): fatal, and asError returns it with its class (exit 13).
	unbounded error
	// failed is the request's own error (a transport failure, a credential
	// plugin's), kept whole so that its class and exit code survive.
	failed error
}

// Err is the request's failure when the try neither worked nor was
// refused as Expired (a 403, no connection, a stream that ended at once),
// with its class (diagnose.ClassifyFailure) kept; nil otherwise.
func (r Try) Err() error {
	if r.Outcome == OutcomeOK || r.Outcome == OutcomeExpired || r.Outcome == "" {
		return nil
	}
	return r.asError()
}

// timeFrom sets the try's latency from sw (deferred by each try, so that
// every return path is timed): from its start to now, less the
// client-side rate limiters' waits (apiclient.Stopwatch).
func (r *Try) timeFrom(sw *apiclient.Stopwatch) {
	r.Latency = sw.Elapsed()
	r.LatencyMillis = float64(r.Latency.Microseconds()) / 1000
}

// Unanswered is why the request of this Try has no answer to record (the
// budget refused it, or the run was cut before its answer: an error
// wrapping context.Canceled), or nil when the server answered it.
func (r Try) Unanswered() error { return r.notSent }

// cutUnanswered leaves no outcome on a try the run cut (apiclient.Cut):
// run is the caller's context (not the try's own, which the try cancels
// itself on a header timeout). A try the server had answered (a Status,
// an event, a watch held silently for the whole wait) keeps its answer;
// any other (a transport error, "cancelled", "the run ended") was the
// cut's, and is unanswered (fresh user try 21 F2).
func (r *Try) cutUnanswered(run context.Context) {
	if r.notSent != nil || !apiclient.Cut(run) || r.Outcome == OutcomeOK || r.Outcome == OutcomeExpired || r.Code != 0 {
		return
	}
	*r = Try{ResourceVersion: r.ResourceVersion, notSent: run.Err()}
}

// TryOptions tune one probe.
type TryOptions struct {
	// Wait is how long an accepted, silent watch is read before it counts as
	// success. The watch cache sends its 410 within one round trip; etcd on
	// its next sync of unsynced watchers (every 100 ms, later when loaded),
	// so adaptiveProbe raises the wait above the slowest 410 seen.
	Wait time.Duration
	// HeaderTimeout bounds the wait for the response headers
	// (DefaultHeaderTimeout when 0); HeaderBound names it in the error of
	// a watch it cut (DefaultHeaderBound when ""): "--request-timeout"
	// where that set it.
	HeaderTimeout time.Duration
	HeaderBound   string
	// Budget (nil = unbounded) gives the watch its token (taken by
	// watchstream.Open, the sender).
	Budget *apiclient.Budget
	// Clock (nil = the real clock) times the header timeout, the wait and
	// the latency: a silent watch counts as started when Wait has passed on
	// it, so that tests decide that without waiting.
	Clock clock.WithDelayedExecution
}

func (o TryOptions) clock() clock.WithDelayedExecution {
	if o.Clock == nil {
		return clock.RealClock{}
	}
	return o.Clock
}

// DefaultTryWait is the default of TryOptions.Wait.
const DefaultTryWait = 250 * time.Millisecond

// DefaultHeaderTimeout and DefaultHeaderBound are the defaults of
// TryOptions.HeaderTimeout and HeaderBound.
const (
	DefaultHeaderTimeout = 10 * time.Second
	DefaultHeaderBound   = "the probe's bound for a watch's answer to begin"
)

// withDefaults is o with its zero fields set to their defaults.
func (o TryOptions) withDefaults() TryOptions {
	if o.Wait <= 0 {
		o.Wait = DefaultTryWait
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = DefaultHeaderTimeout
	}
	if o.HeaderBound == "" {
		o.HeaderBound = DefaultHeaderBound
	}
	return o
}

// TryWatch opens one watch from exactly rv, reads only until the first
// event, an end of stream or opts.Wait, and closes it: it never drains a
// replay. It makes exactly one request, so that the request budget counts
// every request sent.
func TryWatch(ctx context.Context, c *apiclient.Client, t apiclient.Target, rv uint64, opts TryOptions) (res Try) {
	opts = opts.withDefaults()
	res = Try{ResourceVersion: rv}
	clk := opts.clock()
	if !takeToken(ctx, opts.Budget, &res) {
		return res
	}
	defer res.cutUnanswered(ctx) // run last: the try's own ctx is below
	ctx, sw := apiclient.StartStopwatchOn(ctx, clk)
	defer res.timeFrom(sw)
	// The server ends the watch by itself shortly after the wait, in case
	// the close below never reaches it.
	wo := watchstream.Options{ResourceVersion: strconv.FormatUint(rv, 10), RVSet: true, TimeoutSeconds: int64(opts.Wait/time.Second) + 2}
	ctx, headersCame, cancel := apiclient.WithNamedBoundOn(ctx, clk, opts.HeaderTimeout, opts.HeaderBound)
	defer cancel()
	stream := openTry(ctx, headersCame, c, t, wo, &res)
	if stream == nil {
		return res
	}
	defer stream.Close()

	type first struct {
		ev  watchstream.Event
		err error
	}
	got := make(chan first, 1)
	go func() {
		ev, err := stream.Next()
		got <- first{ev: ev, err: err}
	}()
	timer := clk.NewTimer(opts.Wait)
	defer timer.Stop()
	select {
	case f := <-got:
		// The event is held to the Watch contract, as watch and
		// TryWatchThrough hold every event (adversary try 40 F1: a
		// replay of an object outside the namespace was "a watch from
		// RV 1 starts").
		if f.err == nil && f.ev.Type != watchstream.EventError {
			if why := watchstream.NewContract(t, wo).Judge(f.ev); why != "" {
				res.Outcome, res.failed = OutcomeFatal, &diagnose.ContractError{Contract: "Watch", Breach: fmt.Sprintf("the watch from RV %d: %s", rv, why)}
				res.Evidence, res.Message = breachEvidence, res.failed.Error()
				return res
			}
		}
		res.fromFirstEvent(f.ev, f.err, rv)
	case <-timer.C():
		res.Outcome, res.Silent = OutcomeOK, true
		res.Evidence = fmt.Sprintf("accepted: no error within %s", opts.Wait)
	case <-ctx.Done():
		res.Outcome, res.Evidence = OutcomeTransient, "cancelled: "+ctx.Err().Error()
	}
	return res
}

// fromFirstEvent classifies the first thing read from an open watch.
func (r *Try) fromFirstEvent(ev watchstream.Event, err error, rv uint64) {
	if err != nil && !errors.Is(err, io.EOF) {
		r.failed = err // a cut connection is exit 4, as anywhere else
	}
	switch {
	case apiclient.IsBodyCut(err):
		// A stream cut or reset, before its first event or inside it: a
		// broken connection, said in the one wording of a cut body
		// (adversary try 51 F1: "the stream ended before any event",
		// "unreadable stream: ..."), never an end the server chose.
		r.Outcome, r.Evidence = OutcomeTransient, err.Error()
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		// A watch the server accepted ends only at timeoutSeconds; an end
		// before any event is a cache going unready, not a success.
		r.Outcome, r.Evidence = OutcomeTransient, EvidenceEndedAtOnce
	case diagnose.IsUnbounded(err):
		r.Outcome, r.Evidence, r.unbounded = OutcomeFatal, "unreadable stream: "+err.Error(), err
	case err != nil:
		r.Outcome, r.Evidence = OutcomeTransient, "unreadable stream: "+err.Error()
	case ev.Type == watchstream.EventError && ev.Status != nil:
		r.fromStatus(*ev.Status, rv, "ERROR event")
	case ev.Type == watchstream.EventError:
		r.Outcome, r.Evidence = OutcomeTransient, "ERROR event without a Status"
	default:
		r.Outcome = OutcomeOK
		r.Evidence = fmt.Sprintf("replayed %s %s (RV %s)", ev.Type, ev.Object.Name, ev.Object.ResourceVersion)
		r.EventRV, _ = apiclient.ParseRV(ev.Object.ResourceVersion)
	}
}

// EvidenceEndedAtOnce is the evidence of a watch answered and ended by
// the server before any event: an answer (kine without a watch cache gives
// it to a watch from an RV ahead of it), neither a start nor a refusal.
const EvidenceEndedAtOnce = "the stream ended before any event"

// EndedAtOnce: the server answered the watch and ended its stream before
// any event (EvidenceEndedAtOnce).
func (r Try) EndedAtOnce() bool { return r.Evidence == EvidenceEndedAtOnce && r.failed == nil }

// requestFailed is the evidence of a request that got no answer it could
// use; its Message says why.
const requestFailed = "request failed"

// breachEvidence is the evidence of an answer that broke the List or
// Watch contract; its Message says how.
const breachEvidence = "answered in breach of the List or Watch contract"

// fromError classifies a request that failed before a stream was open.
func (r *Try) fromError(err error, rv uint64) {
	r.failed = err
	if st, ok := diagnose.StatusOf(err); ok {
		// An HTTP answer's code is its status, which the transport sets.
		r.fromStatus(diagnose.SentStatus{Status: st, CodeSent: st.Code != 0}, rv, "HTTP")
		return
	}
	r.Outcome, r.Evidence, r.Message = OutcomeTransient, requestFailed, err.Error()
	if f := diagnose.ClassifyFailure(err); f == diagnose.FailureTLS || f == diagnose.FailureUnauthorized || f == diagnose.FailureForbidden || f == diagnose.FailureBadRequest || NotOneServers(err) {
		// An answer that broke the List or Watch contract is the
		// server's, and final: no retry makes it one server's answer
		// (adversary try 38 F1: an exact list answered at another RV was
		// retried as "request failed", and the run exited 7).
		r.Outcome = OutcomeFatal
		if NotOneServers(err) {
			// Answered: no "request failed" (adversary try 39 F5).
			r.Evidence = breachEvidence
		}
	} else if f == diagnose.FailureUnbounded {
		r.Outcome, r.unbounded = OutcomeFatal, err
	}
}

// fromStatus classifies a Status, sent as an HTTP error or as an ERROR
// event, its code said as sent (SentStatus.Text: never a 0 it lacks).
func (r *Try) fromStatus(sent diagnose.SentStatus, rv uint64, how string) {
	st := sent.Status
	r.Code, r.Message = st.Code, st.Message
	r.Evidence = how + " " + sent.Text()
	d := diagnose.FromStatus(st, diagnose.Context{Operation: diagnose.OpWatch, RequestedResourceVersion: strconv.FormatUint(rv, 10), Live: true})
	switch {
	case diagnose.IsPrevKvNil(st):
		// 500 "etcd event received with PrevKv=nil": storage dropped the
		// previous value of a change after rv (etcd at its compaction
		// revision, kine for any object last written below its compaction
		// point), so a watch from rv loses that change (and the server
		// ends the stream). A watch that cannot deliver every change after
		// rv has not started from rv: for the window this is Expired,
		// answered by storage.
		r.Outcome, r.Source = OutcomeExpired, SourceStorage
		r.Evidence = fmt.Sprintf("%s %s: a change after RV %d is lost (PrevKv=nil: its object's previous value is compacted)", how, sent.Text(), rv)
		// Every watch from below the lost change meets it.
		if m, ok := apiclient.ParseRV(d.OldestResourceVersion); ok && m > rv {
			r.LostAt = m
			r.Evidence = fmt.Sprintf("%s %s: the change at RV %d is lost (PrevKv=nil: its object's previous value is compacted)", how, sent.Text(), m)
		}
	case d.Class == diagnose.ClassExpired || st.Code == 410:
		r.Outcome = OutcomeExpired
		r.Source = SourceUnknown
		r.Inconsistent = d.Inconsistent
		switch d.Kind {
		case diagnose.KindWatchCacheWindow:
			r.Source = SourceWatchCache
			if y, ok := apiclient.ParseRV(d.OldestResourceVersion); ok && d.Inconsistent == "" {
				r.OldestNamed = y
			}
		case diagnose.KindEtcdCompactedWatch, diagnose.KindEtcdCompacted:
			r.Source = SourceStorage
		}
	case st.Code == 429:
		r.Outcome = OutcomeThrottled
		if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
			r.RetryAfter = time.Duration(st.Details.RetryAfterSeconds) * time.Second
		}
	case st.Code >= 500 || st.Code == 0:
		r.Outcome = OutcomeTransient
	default:
		r.Outcome = OutcomeFatal
	}
}

// asError turns a non-success, non-Expired result back into an error whose
// exit code the command can derive.
func (r Try) asError() error {
	if r.unbounded != nil {
		return r.unbounded
	}
	if r.failed != nil {
		return r.failed
	}
	if r.Code != 0 {
		st := metav1.Status{Status: metav1.StatusFailure, Code: r.Code, Message: r.Message, Reason: reasonForCode(r.Code)}
		if r.RetryAfter > 0 {
			// Kept, so that the retry policy honours it.
			st.Details = &metav1.StatusDetails{RetryAfterSeconds: int32(r.RetryAfter / time.Second)}
		}
		return &apierrors.StatusError{ErrStatus: st}
	}
	if r.Message != "" {
		return errors.New(r.Message)
	}
	return errors.New(r.Evidence)
}

func reasonForCode(code int32) metav1.StatusReason {
	switch code {
	case 401:
		return metav1.StatusReasonUnauthorized
	case 403:
		return metav1.StatusReasonForbidden
	case 404:
		return metav1.StatusReasonNotFound
	case 429:
		return metav1.StatusReasonTooManyRequests
	case 500:
		return metav1.StatusReasonInternalError
	case 503:
		return metav1.StatusReasonServiceUnavailable
	}
	return metav1.StatusReasonUnknown
}

// takeToken takes the try's request from b before its clock starts: a
// try's latency is the server's answer, not the rate limiter's wait
// (adaptiveProbe waits in proportion to the slowest 410, and at --qps 5 the
// wait for a token alone is 200 ms). The try sends the watch right after,
// with no budget of its own (apiclient.Budget: the sender takes). False:
// the budget refused it, and res says so.
func takeToken(ctx context.Context, b *apiclient.Budget, res *Try) bool {
	if err := b.Take(ctx); err != nil {
		res.notSent = err
		return false
	}
	return true
}

// openTry opens the watch of a try (one request, its token already taken
// by takeToken) under ctx, whose bound for its headers (TryOptions'
// HeaderTimeout, armed by apiclient.WithNamedBoundOn: a watch it cut fails
// as no answer, naming it) headersCame disarms. A nil stream means res
// says why: the server answered an error, or no answer came in time.
func openTry(ctx context.Context, headersCame func(), c *apiclient.Client, t apiclient.Target, wo watchstream.Options, res *Try) *watchstream.Stream {
	stream, err := watchstream.Open(ctx, c, t, wo)
	headersCame()
	if apiclient.NotSent(err) {
		res.notSent = err
		return nil
	}
	if err != nil {
		res.fromError(err, res.ResourceVersion)
		return nil
	}
	return stream
}
