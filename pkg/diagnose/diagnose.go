package diagnose

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// maxTextBytes caps what FromText reads of one message; ScanLog is the way
// to read more.
const maxTextBytes = 1 << 20

// FromStatus diagnoses a decoded Status: a watch ERROR event's object or the
// body of an HTTP error response.
func FromStatus(st metav1.Status, ctx Context) Diagnosis { return fromStatus(st, ctx, nil) }

// fromStatus is FromStatus of a Status whose request the line before it
// named (req, nil if none): kubectl -v=6 prints the request's line, then
// the answer's body (logScanner).
func fromStatus(st metav1.Status, ctx Context, req *Request) Diagnosis {
	if ctx.Live && !IsErrorCode(st.Code) {
		// Received as sent: its code is no error's (sentstatus.go).
		return notErrorCode(st)
	}
	s := &signals{
		text: st.Message, code: int(st.Code), reason: string(st.Reason), message: st.Message,
		freshToken: st.Continue != "", op: ctx.Operation, requested: ctx.RequestedResourceVersion,
		askedRV: ctx.RequestedResourceVersion, live: ctx.Live, noRVSent: ctx.NoResourceVersionSent,
	}
	if req != nil {
		s.urlRV = requestRV(req)
		if s.op == "" {
			s.op = req.Operation
		}
		if s.requested == "" {
			s.requested = s.urlRV
		}
	}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			// The cause type since 1.18.6; the cause message alone before it
			// (client-go reflector.go isTooLargeResourceVersionError).
			if c.Type == metav1.CauseTypeResourceVersionTooLarge || c.Message == phraseTooLarge {
				s.causeLarge = true
			}
		}
	}
	d := classify(s)
	if d.Recognized() && st.Message != "" && d.Confidence == ConfidenceMedium && d.Kind != KindInternalErrorAtCompaction && len(d.Notes) == 0 {
		// A decoded Status is the server's own word: the wrapper cannot hide anything.
		d.Confidence = ConfidenceHigh
	}
	if st.Message != "" {
		d.Message = st.Message
	}
	d.Request = req
	return d
}

// FromError diagnoses any error: an API error (apierrors.APIStatus) through
// its Status, anything else through its text, and network errors as Other.
func FromError(err error, ctx Context) Diagnosis {
	if err == nil {
		return unrecognized()
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return FromStatus(st.Status(), ctx)
	}
	d := fromText(err.Error(), ctx)
	if d.Recognized() {
		return d
	}
	var kind string
	switch ClassifyFailure(err) {
	case FailureConnectionBroken:
		kind = KindConnectionReset
	case FailureNoAnswer:
		kind = KindRequestTimeout
	case FailureUnreachable:
		kind = KindNetworkError
	default:
		return d
	}
	out := withAdvice(Diagnosis{Kind: kind, Confidence: ConfidenceMedium, Message: err.Error(),
		Operation: ctx.Operation, RequestedResourceVersion: ctx.RequestedResourceVersion, live: ctx.Live})
	out.Summary = summary(out)
	return out
}

// FromText diagnoses free text holding one error: a bare server message, a
// JSON Status, a watch event, kubectl's or a client library's rendering, a
// log line. Only the first MiB is read; the time taken is linear in it.
// A text of several lines is read as ScanLog reads a log (ReadText).
func FromText(text string) Diagnosis { return fromText(text, Context{}) }

// FromTextContext is FromText with what the caller knows about the request.
func FromTextContext(text string, ctx Context) Diagnosis { return fromText(text, ctx) }

// TextReading says how ReadText read a text: the errors its lines hold
// (Findings, of Kinds kinds), and the line of the one explained (0: the
// text was read whole, as one error).
type TextReading struct {
	Findings int
	Kinds    int
	Line     int
}

// ReadText is FromTextContext, and how the text was read. A text of
// several lines (a kubectl -v=6 trace, a log excerpt) may hold several
// requests: each line's signals (a status code, "200 OK", an RV, a URL)
// belong to its own request, so the text is read line by line as ScanLog
// reads a log (a Status printed over several lines one error, a request's
// line and the message of its answer one error), and the diagnosis is
// that of one error found, with its own line's request and numbers: the
// most certain one, the first of equals (fresh user try 51 F11, adversary
// try 51 F13: a discovery request's "200 OK" line made the 410 of the
// list after it Unrecognized). A text in which no line holds an error is
// read whole.
func ReadText(text string, ctx Context) (Diagnosis, TextReading) {
	if len(text) > maxTextBytes {
		text = text[:maxTextBytes]
	}
	t := strings.TrimSpace(text)
	if t == "" {
		return unrecognized(), TextReading{}
	}
	if st, src, ok := wholeStatus(t); ok {
		d := FromStatus(st, ctx)
		d.Source = src
		return d, TextReading{}
	}
	if !strings.ContainsAny(t, "\n\r") {
		return classifyText(t, ctx), TextReading{}
	}
	var best *Finding
	kinds := map[string]bool{}
	n := 0
	sc := &logScanner{ctx: ctx, fn: func(f Finding) {
		n++
		kinds[string(f.Class)+"/"+f.Kind] = true
		// The most certain error; of equally certain ones, the first
		// resourceVersion one (a log's 5xx noise is no reason to leave it).
		if best == nil || confidenceRank(f.Confidence) > confidenceRank(best.Confidence) ||
			confidenceRank(f.Confidence) == confidenceRank(best.Confidence) && f.CausedByResourceVersion() && !best.CausedByResourceVersion() {
			best = &f
		}
	}}
	if _, err := sc.scan(strings.NewReader(t)); err != nil || best == nil {
		return classifyText(t, ctx), TextReading{}
	}
	return best.Diagnosis, TextReading{Findings: n, Kinds: len(kinds), Line: best.Line}
}

func fromText(text string, ctx Context) Diagnosis {
	d, _ := ReadText(text, ctx)
	return d
}

func confidenceRank(c string) int {
	switch c {
	case ConfidenceHigh:
		return 3
	case ConfidenceMedium:
		return 2
	case ConfidenceLow:
		return 1
	}
	return 0
}

// requestRV is the RV a request's URL names, "" if none or not one.
func requestRV(req *Request) string {
	if n, end, bad := rvAt(req.ResourceVersion, 0); bad == "" && end == len(req.ResourceVersion) && n != "" {
		return n
	}
	return ""
}

// classifyText reads the signals of a text and classifies it (shared with
// ScanLog, which calls it on one line).
func classifyText(t string, ctx Context) Diagnosis { return classifyTextOf(t, ctx, nil) }

// classifyTextOf is classifyText of a text whose request another line
// named (own, nil if none), when the text names none itself: kubectl
// -v=6 prints the request's line, then "Error from server ..." without
// its URL (logScanner).
func classifyTextOf(t string, ctx Context, own *Request) Diagnosis {
	s := &signals{text: t, reason: reasonIn(t), op: ctx.Operation, requested: ctx.RequestedResourceVersion, askedRV: ctx.RequestedResourceVersion,
		live: ctx.Live, noRVSent: ctx.NoResourceVersionSent}
	s.code, s.codeByName = statusCodeOf(t)
	op, rv := queryHints(t)
	req, unread := requestOfText(t)
	if req == nil && unread == "" {
		req = own
	}
	switch {
	case req != nil:
		// The one URL, read by the API server's rules, over words
		// found anywhere in the text (adversary try 48 F2: a
		// NotOlderThan list with a limit was taken for an exact one).
		op = req.Operation
		if n := requestRV(req); n != "" {
			rv = n
		}
	case unread != "":
		// A URL that is no request, or several: none of them says how
		// the failed request read (adversary try 49 F2).
		op, rv = "", ""
	}
	s.urlRV = rv
	s.getOne = req != nil && req.Name != "" && req.Operation == "" && rv != ""
	if s.op == "" {
		s.op = op
	}
	if s.op == "" {
		s.op, s.opNamedBy = wrapperOperation(t)
	}
	if s.requested == "" {
		s.requested = rv
	}
	if i, q := valueAfterKey(t, "continue"); i >= 0 && q != "" && i < len(t) && !strings.HasPrefix(t[i:], q) {
		s.freshToken = true
	}
	s.causeLarge = strings.Contains(t, string(metav1.CauseTypeResourceVersionTooLarge))
	d := classify(s)
	// The URL's request, recognized or not: --check asks it (fresh user
	// try 49 F3: a -v=6 watch line, 200 OK, was checked on the default).
	d.Request, d.RequestUnread = req, unread
	if req == nil {
		d.Type = typeOfText(t)
	}
	if !d.Recognized() {
		return d
	}
	d.Source = sourceOf(t)
	if m, ok := stringField(t, "message", true); ok && d.Message != "" && strings.Contains(m, d.Message) {
		d.Message = m
	}
	return d
}

// wholeStatus decodes text that is one JSON Status or one watch event
// carrying a Status. Large or deeply nested JSON is left to the flat scan.
func wholeStatus(t string) (metav1.Status, string, bool) {
	if t[0] != '{' || t[len(t)-1] != '}' || len(t) > maxJSONBytes || !jsonDepthOK(t) {
		return metav1.Status{}, "", false
	}
	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal([]byte(t), &ev); err != nil {
		return metav1.Status{}, "", false
	}
	raw, src := []byte(t), "API Status (JSON)"
	if ev.Type != "" && len(ev.Object) > 0 {
		raw, src = ev.Object, "watch event "+ev.Type
	}
	var st metav1.Status
	var list struct {
		Items json.RawMessage `json:"items"` // a list's, never a Status's
	}
	if err := json.Unmarshal(raw, &st); err != nil || json.Unmarshal(raw, &list) != nil || !IsStatusObject(st.Kind, st.Status, len(list.Items) > 0) || st.Code == 0 {
		return metav1.Status{}, "", false
	}
	return st, src, true
}

// malformedWords names the numbers whose token is no RV: "its requested
// RV", "its requested and oldest servable RVs".
func malformedWords(names []string) string {
	if len(names) == 1 {
		return "its " + names[0] + " RV"
	}
	return "its " + strings.Join(names, " and ") + " RVs"
}

// summary is the one-line verdict, with the numbers.
func summary(d Diagnosis) string {
	rv := func(prefix string) string {
		if d.RequestedResourceVersion == "" {
			return ""
		}
		return prefix + d.RequestedResourceVersion
	}
	if d.Inconsistent != "" {
		return inconsistentSummary(d)
	}
	switch d.Kind {
	case KindWatchCacheWindow:
		if d.OldestResourceVersion == "" && len(d.malformed) > 0 {
			return fmt.Sprintf("too old: the watch asked for the events after RV %s; the oldest servable RV the text names is no RV the API server prints (see the note)", d.RequestedResourceVersion)
		}
		if d.OldestResourceVersion == "" {
			return fmt.Sprintf("too old: the watch asked for the events after RV %s; the oldest RV this API server can still serve is cut off in this text", d.RequestedResourceVersion)
		}
		return fmt.Sprintf("too old: the watch asked for the events after RV %s, but the oldest RV this API server can still serve is %s (%s behind)", d.RequestedResourceVersion, d.OldestResourceVersion, orUnknown(d.Gap))
	case KindWatchCacheSnapshot:
		return "too old: the watch cache holds no snapshot old enough for the exact list" + rv(" at RV ")
	case KindEtcdCompactedWatch:
		return "too old: storage (etcd, or a shim such as kine) has compacted the revision the watch started from" + rv(", RV ") + " (the watch cache is not serving this watch)"
	case KindEtcdCompactedExactList:
		return "too old: storage (etcd, or a shim such as kine) has compacted the revision of this exact-RV list" + rv(", RV ")
	case KindContinueExpired:
		return "too old: the continue token's snapshot has been compacted; the list must restart from page 1"
	case KindContinueExpiredInconsistent:
		return "too old: the continue token's snapshot has been compacted; the server offered a fresh token that would give an inconsistent list"
	case KindEtcdCompacted:
		return "too old: etcd says the required revision has been compacted"
	case KindEtcdV2IndexCleared:
		if d.OldestResourceVersion == "" {
			return "too old: etcd v2's watch history no longer holds the requested index" + rv(" ")
		}
		return fmt.Sprintf("too old: the watch asked etcd v2 for the events after index %s, but its history starts at %s (%s behind)", d.RequestedResourceVersion, d.OldestResourceVersion, orUnknown(d.Gap))
	case KindTooOldResourceVersion:
		if d.RequestedResourceVersion != "" {
			// Either checkOperation (the request named is not the one
			// the wording belongs to) or a text without the numbers,
			// whose RV is the caller's: in both, which window expired is
			// not told, and a note says why (fresh try 25: "disagree (see
			// Note)" above a note that said the numbers were missing).
			return fmt.Sprintf("too old: RV %s expired; which window it expired from is not known (see the note): confidence low", d.RequestedResourceVersion)
		}
		if len(d.malformed) > 0 {
			// Numbers are there, in a form the server never prints:
			// never "without the numbers" (adversary F6).
			out := "too old, probably: \"too old resource version\" with " + malformedWords(d.malformed) + " in a form the API server never prints (see the note)"
			if d.OldestResourceVersion != "" {
				out += "; the oldest servable RV it names is " + d.OldestResourceVersion
			}
			return out + ": confidence low"
		}
		return "too old, probably: \"too old resource version\" without the numbers the server prints with it (cut or reworded: see the note): confidence low"
	case KindConflict:
		return "not a List/Watch error: 409 Conflict, an update carried a stale metadata.resourceVersion (optimistic concurrency)"
	case KindWatchCacheInitializing:
		return "not a resourceVersion error: 429, the API server's watch cache for this resource is (re)initializing; back off and retry"
	case KindResourceVersionSetOnCreate:
		return "not a List/Watch error: a create carried a metadata.resourceVersion, which only the server assigns"
	case KindResourceVersionMissingOnUpdate:
		return "not a List/Watch error: 422, an update carried no metadata.resourceVersion and this resource requires one"
	case KindWatchEventLostAtCompaction:
		if d.OldestResourceVersion == "" {
			return "an event lost to compaction (500 PrevKv=nil): the watch (watch cache off) reached a change whose previous value is compacted, and the server ended the stream; relist"
		}
		return fmt.Sprintf("an event lost to compaction: the watch (watch cache off) reached the change at RV %s, whose previous value is compacted; the event is lost and the server ended the stream; relist, or watch from %s", d.OldestResourceVersion, d.OldestResourceVersion)
	case KindGone:
		return "too old: 410 Gone" + rv(" for RV ") + ", without the message that names the window"
	case KindResourceVersionTooLarge:
		if consistentReadLag(d) {
			// A consistent read (no RV sent) names the RV it waited for
			// (consistentRead): as the cacher's 429 is said.
			return fmt.Sprintf("too new for the watch cache: a consistent read (no resourceVersion sent) waited for RV %s, storage's current one, and the cache is at %s (%s behind storage); answered %d", d.RequestedResourceVersion, orUnknown(d.CurrentResourceVersion), orUnknown(d.Gap), d.Code)
		}
		if d.CurrentResourceVersion == "" {
			if d.RequestedResourceVersion == "" {
				if len(d.malformed) > 0 {
					verb := map[bool]string{true: " is", false: " are"}[len(d.malformed) == 1]
					return "too new: the request asked for an RV which this API server has not reached (" + malformedWords(d.malformed) + verb + " in a form the API server never prints: see the note)"
				}
				return "too new: the request asked for an RV which this API server has not reached (the RVs are not in the text)"
			}
			return "too new: the request asked for RV " + d.RequestedResourceVersion + " which this API server has not reached"
		}
		if d.RequestedResourceVersion == "" {
			return "too new: the request asked for an RV this text does not say (see the note), which this API server, at " + d.CurrentResourceVersion + ", has not reached"
		}
		if d.CurrentResourceVersion == "0" {
			return fmt.Sprintf("too new: the request asked for RV %s; the API server could not read its current RV (it reported 0)", d.RequestedResourceVersion)
		}
		return fmt.Sprintf("too new: the request asked for RV %s, but this API server is at %s (%s ahead)", d.RequestedResourceVersion, d.CurrentResourceVersion, orUnknown(d.Gap))
	case KindConsistentReadCacheLagging:
		return fmt.Sprintf("too new for the watch cache: a consistent read needs RV %s, the cache is at %s (%s behind storage); answered 429", d.RequestedResourceVersion, orUnknown(d.CurrentResourceVersion), orUnknown(d.Gap))
	case KindEtcdFutureRevision:
		return "too new: etcd says the required revision is a future revision"
	case KindRequestTimeout:
		return "not a resourceVersion error: the request timed out"
	case KindTooManyRequests:
		return "not a resourceVersion error: the API server is throttling (429 Too Many Requests)"
	case KindInternalErrorAtCompaction:
		return "a compacted revision reported as " + codeWords(int(d.Code)) + ": an Expired error in disguise"
	case KindServerError:
		return "not a resourceVersion error: a server-side (5xx) failure"
	case KindWatchEnded:
		return "not a resourceVersion error: the watch ended or broke, the client resumes from its last RV"
	case KindInvalidResourceVersion:
		return "not an expiry: the resourceVersion parameters of the request are invalid"
	case KindInvalidContinue:
		return "not an expiry: the continue token is malformed"
	case KindConnectionReset:
		return "not a resourceVersion error: the connection to the API server broke"
	case KindNetworkError:
		return "not a resourceVersion error: the API server could not be reached"
	}
	return ""
}

// ownCacheCatchingUp is the TooLarge Why's source that only a server with
// a watch cache for the resource can be; noOwnCache says it of a server
// checked to have none now (withoutOwnCache).
const (
	ownCacheCatchingUp = "this server's watch cache still catching up after a restart"
	noOwnCache         = "this server's watch cache catching up after a restart, if it had one for the resource when the error came (checked now, it has none)"
)

// tooLargeHint adds what the size of the gap suggests about the RV's origin.
func tooLargeHint(d Diagnosis) string {
	n, ok1 := rv.Parse(d.RequestedResourceVersion)
	m, ok2 := rv.Parse(d.CurrentResourceVersion)
	if !ok1 || !ok2 || m == 0 || n <= m || d.Kind != KindResourceVersionTooLarge {
		return ""
	}
	if n-m <= 10000 && n-m <= m/10 {
		return fmt.Sprintf(smallGapHint, n-m)
	}
	return fmt.Sprintf(" Here the gap is large (%d): an RV from another cluster or from before an etcd restore is the likely source.", n-m)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// sourceOf names the wrapper an error was found in.
func sourceOf(t string) string {
	switch {
	case strings.Contains(t, "Error from server"):
		return "kubectl"
	case strings.Contains(t, `"logger":"controller-runtime`):
		return "controller-runtime log"
	case strings.Contains(t, "reflector.go") || strings.Contains(t, "reflector=") || strings.Contains(t, "watch of *") ||
		strings.Contains(t, "ailed to list *"):
		return "client-go reflector log"
	case strings.Contains(t, "round_trippers.go"):
		return "client-go HTTP trace (-v=6)"
	case strings.Contains(t, "fabric8") || strings.Contains(t, "http gone"):
		return "fabric8 Kubernetes client (Java)"
	case strings.Contains(t, "io.kubernetes.client") || strings.Contains(t, "HTTP response code:") ||
		strings.Contains(t, "class V1Status") || strings.Contains(t, "will retry w/o resourceVersion"):
		return "official Java client"
	case strings.Contains(t, "ErrorResponse {") || strings.Contains(t, "kube_runtime") || strings.Contains(t, "kube::"):
		return "kube-rs (Rust)"
	case strings.Contains(t, "k8s.Autorest") || strings.Contains(t, "k8s.KubernetesException") || strings.Contains(t, qualStatusName):
		return ".NET Kubernetes client"
	case strings.Contains(t, "HTTP-Code:") || strings.Contains(t, "statusCode: "):
		return "JavaScript client (@kubernetes/client-node)"
	case strings.Contains(t, "ApiException") || strings.Contains(t, "Reason: "):
		return "Python kubernetes client"
	case strings.Contains(t, "watch chan error"):
		return "kube-apiserver log"
	case strings.Contains(t, "etcdserver:"):
		return "etcd"
	case strings.Contains(t, `"type":"ERROR"`):
		return "watch event ERROR"
	case strings.Contains(t, `"kind":"Status"`):
		return "API Status (JSON)"
	case strings.Contains(t, `'kind': 'Status'`):
		return "API Status (Python dict)"
	case strings.Contains(t, "HTTP/1.1 ") || strings.Contains(t, "HTTP/2 "):
		return "HTTP response"
	}
	return ""
}

// smallGapHint and smallGapNoCache: what a small TooLarge gap suggests,
// with the server's own watch cache among the sources, and without it
// where the check found none (withoutOwnCache).
const (
	smallGapHint    = " Here the gap is small (%d): a watch cache catching up or another API server of the same cluster is the likely source."
	smallGapNoCache = " Here the gap is small (%d): another API server of the same cluster is the likely source (this server, checked now, has no watch cache for the resource)."
)

// withoutOwnCache is a TooLarge Why told that this server has no watch
// cache for the resource now (explain-error --check read its /metrics):
// its own cache catching up is said as a source only if it had one then
// (fresh user try 44 F2: the Why named this server's watch cache beside
// the check that found none).
func withoutOwnCache(d Diagnosis) Diagnosis {
	d.Why = strings.Replace(d.Why, ownCacheCatchingUp, noOwnCache, 1)
	n, ok1 := rv.Parse(d.RequestedResourceVersion)
	m, ok2 := rv.Parse(d.CurrentResourceVersion)
	if ok1 && ok2 && n > m {
		d.Why = strings.Replace(d.Why, fmt.Sprintf(smallGapHint, n-m), fmt.Sprintf(smallGapNoCache, n-m), 1)
	}
	return d
}
