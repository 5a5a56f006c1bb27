package diagnose

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// The server's wordings, verified in the v1.37.2 sources (paths under
// k8s.io/apiserver@v0.37.2/pkg/storage unless said otherwise) and etcd v3.7.3.
// Every constant named phrase* is a trigger: a text holding it is classified,
// so each one must hold a prefilter anchor (TestEveryPhraseIsAnAnchor). The
// qual* constants only qualify a text a phrase was found in.
const (
	// cacher/watch_cache_history.go: "too old resource version: %d (%d)";
	// cacher/store/watch_cache_storage.go: "too old resource version: %d".
	phraseTooOld = "too old resource version"
	// errors.go NewTooLargeResourceVersionError, wrapped by apimachinery
	// NewTimeoutError as "Timeout: %s".
	phraseTooLarge = "Too large resource version"
	qualCurrent    = ", current: "
	// etcd3/errors.go.
	phraseWatchTooOld    = "The resourceVersion for the provided watch is too old" // no period: a status line leaves it out before ": " (StatusLine)
	phraseListTooOld     = "The resourceVersion for the provided list is too old"  // no period: the plugin's own list error reads "too old: Do not list ..." (WithFix)
	phraseContinueTooOld = "The provided continue parameter is too old"
	// The same error before the list parameter was renamed continue
	// (Kubernetes 1.8 to 1.12 etcd3/errors.go): "The provided from parameter
	// is too old to display a consistent list result. You must start a new
	// list without the from."
	phraseFromTooOld = "The provided from parameter is too old"
	qualFreshToken   = "use the continue token in this response"
	// go.etcd.io/etcd/api/v3/v3rpc/rpctypes/error.go (ErrGRPCCompacted,
	// ErrGRPCFutureRev) and server/v3/storage/mvcc/kvstore.go.
	phraseCompacted  = "required revision has been compacted"
	phraseFutureRev  = "required revision is a future revision"
	phraseInternal   = "Internal error occurred"  // apimachinery NewInternalError
	phraseServerErr  = "an error on the server (" // apimachinery NewGenericServerResponse, code >= 500
	phraseDecodeFail = "unable to decode an event from the watch stream"
	// etcd v2 (server/v3/etcdserver/api/v2error/error.go EcodeEventIndexCleared,
	// v2store/event_history.go "the requested history has been cleared
	// [%v/%v]" with the oldest index kept, then the requested one), as
	// Kubernetes before 1.13 passed it on with etcd2 storage: "401: The event
	// in requested index is outdated and cleared (the requested history has
	// been cleared [2578313/2577886]) [2579312]".
	phraseV2Cleared = "The event in requested index is outdated and cleared"
	qualV2History   = "the requested history has been cleared ["
	// registry/generic/registry/store.go OptimisticLockErrorMsg, in a 409
	// Conflict: "Operation cannot be fulfilled on %s %q: %v".
	phraseConflict = "the object has been modified"
	qualConflictOp = "Operation cannot be fulfilled on "
	// cacher/ready.go, answered as 429 TooManyRequests by cacher.go.
	phraseInitializing = "storage is (re)initializing"
	// storage/errors.go ErrResourceVersionSetOnCreate (etcd3/store.go Create).
	phraseSetOnCreate = "resourceVersion should not be set on objects to be created"
	// registry/generic/registry/store.go and apimachinery
	// api/validation/objectmeta.go: field.Invalid(metadata.resourceVersion,
	// ..., "must be specified for an update"), a 422 Invalid.
	phraseMissingOnUpdate = "must be specified for an update"
	qualRVField           = "resourceVersion: Invalid value"
	// etcd3/event.go parseEvent, sent by etcd3/watcher.go as a 500 ERROR
	// event: "etcd event received with PrevKv=nil (key=%q, modRevision=%d,
	// type=%s)".
	phrasePrevKvNil = "etcd event received with PrevKv=nil"
	qualModRevision = "modRevision="
	// client-go tools/cache/reflector.go (old klog text): "watch of %v
	// ended with: %v".
	phraseWatchOf = "watch of "
	qualEndedWith = " ended with: "
	// The 422 a server without the WatchList feature gives a streaming
	// list (v1.30.14, v1.33.13: "ListOptions.meta.k8s.io \"\" is invalid:
	// sendInitialEvents: Forbidden: sendInitialEvents is forbidden for
	// watch unless the WatchList feature gate is enabled").
	phraseWatchListOff = "forbidden for watch unless the WatchList feature gate is enabled"
)

// matcher recognizes one family of errors; it fills d and reports success.
type matcher func(s *signals, d *Diagnosis) bool

// matchers run in order: the server's exact wordings first, then the
// lookalikes' wordings, then what a status code or reason alone says.
var matchers = []matcher{
	matchTooLarge, matchTooOld, matchEtcdWatch, matchEtcdList, matchContinue, matchEtcdV2,
	matchPrevKv, matchCompacted, matchFutureRev, matchConflict, matchInitializing, matchWriteRV,
	matchInvalid, matchConnection, matchWatchEnded, matchCodeOnly,
}

// classify turns signals into a diagnosis.
func classify(s *signals) Diagnosis {
	d := Diagnosis{
		Code: int32(s.code), Reason: s.reason, Operation: s.op, Source: s.source,
		RequestedResourceVersion: s.requested, live: s.live, noRVSent: s.noRVSent,
	}
	for _, m := range matchers {
		if m(s, &d) {
			if !fitsCode(d.Kind, s.code) {
				return byMeasuredCode(s, d.Kind, orKeep(s.message, d.Message))
			}
			markNumbers(&d)
			checkOperation(&d, s)
			if why := contradiction(d, s); why != "" {
				d.Inconsistent, d.Confidence, d.Gap = why, ConfidenceLow, ""
				note(&d, said(d, "the numbers are inconsistent: "+why+": the text was edited or pieced together, so what happened is unknown",
					"the answer is inconsistent: "+why+": something other than the API server answered, or the server is broken, so what happened is unknown"))
			}
			d = withAdvice(d)
			d.Summary = summary(d)
			if d.Class == ClassTooLarge && d.Inconsistent == "" {
				d.Why += tooLargeHint(d)
			}
			return d
		}
	}
	u := unrecognized()
	u.Code, u.Reason, u.Source = d.Code, d.Reason, d.Source
	if IsNormalWatchEnd(s.text) {
		note(&u, "this is client-go's record of a watch that ended normally (its 5 to 10 minute timeoutSeconds ran out; the Reflector watches again from its last RV): not an error")
	}
	return u
}

// note records what the text lacks or holds wrong.
func note(d *Diagnosis, text string) { d.Notes = append(d.Notes, text) }

// markNumbers notes RVs that no server could have issued: Kubernetes parses
// RVs as unsigned 64-bit integers (storage APIObjectVersioner), and etcd
// revisions are int64. Such an RV is kept as text, never cut or rounded;
// contradiction makes the whole answer one told as the text's claim (low
// confidence): the text was damaged or the RV made up.
func markNumbers(d *Diagnosis) {
	for _, f := range []struct{ name, v string }{
		{"requested", d.RequestedResourceVersion}, {"oldest", d.OldestResourceVersion}, {"current", d.CurrentResourceVersion},
	} {
		if f.v == "" || rv.Valid(f.v) {
			continue
		}
		shown := f.v
		if len(shown) >= maxDigits {
			shown = shown[:16] + "…"
		}
		note(d, fmt.Sprintf("the %s RV %s is not a number this server could have issued: it %s; it is kept as text, and no gap is computed", f.name, shown, pastMax(f.v)))
	}
}

// pastMax is rv.PastMax of a run of digits digitsAt kept: one of
// maxDigits may have been longer in the text.
func pastMax(n string) string {
	if len(n) >= maxDigits {
		return fmt.Sprintf("has %d digits or more, more than a 64-bit number holds (at most 20)", maxDigits)
	}
	return rv.PastMax(n)
}

func set(d *Diagnosis, kind, confidence, message string) bool {
	d.Kind, d.Confidence = kind, confidence
	if d.Message == "" {
		d.Message = message
	}
	if d.Operation == "" {
		switch kind {
		case KindWatchCacheWindow, KindEtcdCompactedWatch:
			d.Operation = OpWatch
		case KindEtcdCompactedExactList, KindWatchCacheSnapshot:
			d.Operation = OpListExact
		case KindContinueExpired, KindContinueExpiredInconsistent, KindInvalidContinue:
			d.Operation = OpListContinue
		}
	}
	return true
}

// wordConfidence is codeConfidence, raised to medium when a known wording
// says the same.
func wordConfidence(s *signals, code int, reason, t string, words []string) string {
	c := codeConfidence(s, code, reason)
	if c == ConfidenceLow && containsAny(t, words) {
		return ConfidenceMedium
	}
	return c
}

// codeConfidence: the code and the reason together are high, unless the
// code was only read from client-go's words for it (codeByName), which
// client-go wrote, with the reason kubectl prints, from the code alone.
func codeConfidence(s *signals, code int, reason string) string {
	switch {
	case s.code == code && s.reason == reason && !s.codeByName:
		return ConfidenceHigh
	case s.code == code || s.reason == reason:
		return ConfidenceMedium
	}
	return ConfidenceLow
}

func containsAny(t string, words []string) bool { return firstOf(t, words) != "" }

func firstOf(t string, words []string) string {
	for _, w := range words {
		if strings.Contains(t, w) {
			return w
		}
	}
	return ""
}

// lineFrom returns t from i to the end of its line (at most 300 bytes),
// without a closing quote of a wrapper.
func lineFrom(t string, i int) string {
	s := t[i:]
	if k := strings.IndexAny(s, "\n\""); k >= 0 {
		s = s[:k]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return strings.TrimRight(s, `\ `)
}

func orKeep(v, old string) string {
	if v != "" {
		return v
	}
	return old
}

// wrapperOperation is the request a client's log line names around the
// server's words: client-go's Reflector writes "failed to list *v1.Pod:
// ..." and "watch of *v1.Pod ended with: ..." (tools/cache/reflector.go).
// The phrase is returned too, for the note of checkOperation.
func wrapperOperation(t string) (op, phrase string) {
	for _, w := range []struct{ phrase, op string }{
		{"failed to list *", OpList}, {"Failed to list *", OpList},
		{phraseWatchOf + "*", OpWatch}, {"failed to watch *", OpWatch}, {"Failed to watch *", OpWatch},
	} {
		if strings.Contains(t, w.phrase) {
			return w.op, strings.TrimSuffix(w.phrase, " *")
		}
	}
	return "", ""
}

// checkOperation: the two wordings of the watch cache's expiry tell which
// request got them ("too old resource version: X (Y)": a watch from the
// window; "too old resource version: X": an exact list from the
// snapshots). When the text names the other request (a client's wrapper,
// or the caller), the story of either would be made up: the diagnosis
// says only what is known (an expiry of RV X), at low confidence, and why.
func checkOperation(d *Diagnosis, s *signals) {
	if s.op == "" {
		return
	}
	watch := s.op == OpWatch
	if d.Kind == KindResourceVersionTooLarge && watch {
		if s.noRVSent && s.askedRV == "" || sentRVZero(s) {
			return // noRVSentContradiction says it: one note
		}
		// The API server holds a watch from an RV it has not reached (or,
		// kine without a watch cache, ends it with an empty answer): it
		// never answers a watch "Too large resource version".
		note(d, said(*d, fmt.Sprintf("the text names a watch (%s), but \"Too large resource version\" is a list's answer: an API server holds a watch from an RV it has not reached instead; the line was pieced together, or names the wrong request", orNamed(s.opNamedBy, s.op)),
			"the server answered a watch with \"Too large resource version\", a list's answer: an API server holds a watch from an RV it has not reached instead; something other than the API server answered, or the server is broken"))
		d.Confidence = ConfidenceLow
		return
	}
	switch {
	case d.Kind == KindWatchCacheWindow && !watch && s.op != OpStreamingList:
		// A streaming list is a watch request: the watch cache answers
		// one from before its window with these words too (fresh user
		// try 32 F3: "this request was no watch" of a watch=1 request).
		note(d, said(*d, "the text names a list ("+orNamed(s.opNamedBy, s.op)+")", "the request was a list ("+s.op+")")+", but \"too old resource version: X (Y)\" is the watch cache's answer to a watch from an RV before its window: which request expired, and in which window, is not certain")
	case d.Kind == KindWatchCacheSnapshot && watch:
		note(d, said(*d, "the text names a watch ("+orNamed(s.opNamedBy, s.op)+")", "the request was a watch")+", but \"too old resource version: X\" without \"(Y)\" is the watch cache's answer to an exact list (a watch's answer names the oldest RV): "+said(*d, "the text may be cut", "the answer is not the watch cache's as it is")+"; which window expired is not known")
	default:
		return
	}
	d.Kind, d.Confidence, d.Operation = KindTooOldResourceVersion, ConfidenceLow, s.op
}

func orNamed(phrase, op string) string {
	if phrase != "" {
		return "\"" + phrase + "\""
	}
	return "the operation given: " + op
}
