package diagnose

import (
	"fmt"
	"strings"
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
	phraseWatchTooOld    = "The resourceVersion for the provided watch is too old."
	phraseListTooOld     = "The resourceVersion for the provided list is too old."
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
		RequestedResourceVersion: s.requested,
	}
	for _, m := range matchers {
		if m(s, &d) {
			markNumbers(&d)
			d = withAdvice(d)
			d.Summary = summary(d)
			if d.Class == ClassTooLarge {
				d.Why += tooLargeHint(d)
			}
			return d
		}
	}
	u := unrecognized()
	u.Code, u.Reason, u.Source = d.Code, d.Reason, d.Source
	return u
}

// note records what the text lacks or holds wrong.
func note(d *Diagnosis, text string) { d.Notes = append(d.Notes, text) }

// markNumbers flags RVs that no server could have issued: Kubernetes parses
// RVs as unsigned 64-bit integers (storage APIObjectVersioner), and etcd
// revisions are int64. Such an RV is kept as text, never cut or rounded, and
// lowers the confidence: the text was damaged or the RV made up.
func markNumbers(d *Diagnosis) {
	for _, f := range []struct{ name, v string }{
		{"requested", d.RequestedResourceVersion}, {"oldest", d.OldestResourceVersion}, {"current", d.CurrentResourceVersion},
	} {
		if f.v == "" || fitsUint64(f.v) {
			continue
		}
		shown := f.v
		if len(shown) >= maxDigits {
			shown = shown[:16] + "…"
		}
		note(d, fmt.Sprintf("the %s RV %s (%d digits) is not a number this server could have issued: it does not fit in 64 bits; it is kept as text, and no gap is computed", f.name, shown, len(f.v)))
		if d.Confidence == ConfidenceHigh {
			d.Confidence = ConfidenceMedium
		}
	}
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

func matchTooLarge(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phraseTooLarge)
	if i < 0 || !strings.HasPrefix(s.text[i+len(phraseTooLarge):], ": ") {
		if !s.causeLarge {
			return false
		}
		return set(d, KindResourceVersionTooLarge, ConfidenceMedium, "")
	}
	n, j := digitsAt(s.text, i+len(phraseTooLarge)+2)
	end := j
	var m string
	if strings.HasPrefix(s.text[j:], qualCurrent) {
		m, end = digitsAt(s.text, j+len(qualCurrent))
	}
	d.RequestedResourceVersion, d.CurrentResourceVersion = orKeep(n, d.RequestedResourceVersion), m
	d.Gap = subtract(n, m)
	start := i
	if strings.HasSuffix(s.text[:i], "Timeout: ") {
		start = i - len("Timeout: ")
	}
	conf := ConfidenceHigh
	if n == "" || m == "" {
		conf = ConfidenceMedium
	}
	if n != "" && m == "" {
		note(d, "the current RV is missing from this text (the server prints \"Too large resource version: N, current: M\"): the gap is unknown")
	}
	kind := KindResourceVersionTooLarge
	if s.code == 429 || s.reason == "TooManyRequests" {
		kind = KindConsistentReadCacheLagging
	}
	return set(d, kind, conf, s.text[start:end])
}

func matchTooOld(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phraseTooOld)
	if i < 0 {
		return false
	}
	x, j := "", i+len(phraseTooOld)
	if strings.HasPrefix(s.text[j:], ": ") {
		x, j = digitsAt(s.text, j+2)
	}
	if x == "" {
		// The server always prints the requested RV: this text was cut, or
		// written by a client, a proxy or a fake server.
		note(d, "the wording has none of the numbers the API server prints with it (\"too old resource version: X (Y)\"): the requested and oldest RVs are unknown, and so is which window expired")
		return set(d, KindTooOldResourceVersion, ConfidenceLow, phraseTooOld)
	}
	d.RequestedResourceVersion = x
	if strings.HasPrefix(s.text[j:], " (") {
		y, k := digitsAt(s.text, j+2)
		if y != "" && k < len(s.text) && s.text[k] == ')' {
			d.OldestResourceVersion = y
			d.Gap = subtract(y, x)
			return set(d, KindWatchCacheWindow, ConfidenceHigh, s.text[i:k+1])
		}
		if y != "" || k == len(s.text) {
			// "214 (25" or "214 (": the window form, cut before its ')'.
			note(d, fmt.Sprintf("the oldest servable RV is missing: the text is cut at %q, before the closing parenthesis", s.text[j:k]))
			return set(d, KindWatchCacheWindow, ConfidenceMedium, s.text[i:k])
		}
	}
	return set(d, KindWatchCacheSnapshot, ConfidenceMedium, s.text[i:j])
}

func matchEtcdWatch(s *signals, d *Diagnosis) bool {
	if !strings.Contains(s.text, phraseWatchTooOld) {
		return false
	}
	return set(d, KindEtcdCompactedWatch, ConfidenceHigh, phraseWatchTooOld)
}

func matchEtcdList(s *signals, d *Diagnosis) bool {
	if !strings.Contains(s.text, phraseListTooOld) {
		return false
	}
	return set(d, KindEtcdCompactedExactList, ConfidenceHigh, phraseListTooOld)
}

func matchContinue(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phraseContinueTooOld)
	if i < 0 {
		i = strings.Index(s.text, phraseFromTooOld)
	}
	if i < 0 {
		return false
	}
	msg := s.text[i:]
	if k := strings.IndexAny(msg, "\"\n'"); k >= 0 {
		msg = msg[:k]
	}
	msg = strings.TrimRight(msg, `\`)
	if s.freshToken || strings.Contains(s.text[i:], qualFreshToken) {
		return set(d, KindContinueExpiredInconsistent, ConfidenceHigh, msg)
	}
	return set(d, KindContinueExpired, ConfidenceHigh, msg)
}

// matchEtcdV2 reads etcd v2's "[oldest/requested]" indexes, each one kept
// only when the character that closes it is there.
func matchEtcdV2(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phraseV2Cleared)
	if i < 0 {
		return false
	}
	start, end := i, i+len(phraseV2Cleared)
	if strings.HasSuffix(s.text[:i], "401: ") {
		start -= len("401: ")
	}
	conf := ConfidenceMedium
	if strings.HasPrefix(s.text[end:], " ("+qualV2History) {
		p := end + len(" (") + len(qualV2History)
		oldest, q := digitsAt(s.text, p)
		end = q
		if oldest != "" && q < len(s.text) && s.text[q] == '/' {
			d.OldestResourceVersion = oldest
			req, r := digitsAt(s.text, q+1)
			end = r
			if req != "" && r < len(s.text) && s.text[r] == ']' {
				d.RequestedResourceVersion = orKeep(req, d.RequestedResourceVersion)
				d.Gap = subtract(oldest, req)
				conf, end = ConfidenceHigh, r+1
				if end < len(s.text) && s.text[end] == ')' {
					end++
				}
			}
		}
		if conf != ConfidenceHigh {
			note(d, fmt.Sprintf("the [oldest/requested] indexes are cut in this text at %q: what is missing is unknown", s.text[p-1:end]))
		}
	}
	return set(d, KindEtcdV2IndexCleared, conf, s.text[start:end])
}

// matchPrevKv reads the revision of the event a watch lost.
func matchPrevKv(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phrasePrevKvNil)
	if i < 0 {
		return false
	}
	end := i + len(phrasePrevKvNil)
	conf := ConfidenceMedium
	if k := strings.Index(s.text[end:min(len(s.text), end+fieldWindow)], qualModRevision); k >= 0 {
		r, j := digitsAt(s.text, end+k+len(qualModRevision))
		if r != "" {
			d.OldestResourceVersion, conf, end = r, ConfidenceHigh, j
			if c := strings.IndexByte(s.text[j:min(len(s.text), j+40)], ')'); c >= 0 {
				end = j + c + 1
			}
		}
	}
	if conf != ConfidenceHigh {
		note(d, "the revision of the lost event (modRevision=R) is missing from this text")
	}
	return set(d, KindWatchEventLostAtCompaction, conf, s.text[i:end])
}

func matchCompacted(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phraseCompacted)
	if i < 0 {
		return false
	}
	msg := etcdMessage(s.text, i, phraseCompacted)
	if s.code >= 500 || s.reason == "InternalError" || strings.Contains(s.text, phraseInternal) || strings.Contains(s.text, phraseServerErr) {
		return set(d, KindInternalErrorAtCompaction, ConfidenceMedium, msg)
	}
	return set(d, KindEtcdCompacted, ConfidenceHigh, msg)
}

func matchFutureRev(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phraseFutureRev)
	if i < 0 {
		return false
	}
	return set(d, KindEtcdFutureRevision, ConfidenceHigh, etcdMessage(s.text, i, phraseFutureRev))
}

// etcdMessage widens an etcd phrase to "etcdserver: mvcc: ..." when present.
func etcdMessage(t string, i int, phrase string) string {
	start := i
	for _, p := range []string{"mvcc: ", "etcdserver: "} {
		if strings.HasSuffix(t[:start], p) {
			start -= len(p)
		}
	}
	return t[start : i+len(phrase)]
}

// matchConflict: a 409 on a write whose metadata.resourceVersion is stale.
func matchConflict(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phraseConflict)
	if i < 0 {
		return false
	}
	start, end := i, i+len(phraseConflict)
	if k := strings.LastIndex(s.text[max(0, i-300):i], qualConflictOp); k >= 0 {
		start = max(0, i-300) + k
	}
	if strings.HasPrefix(s.text[i:], optimisticLockMsg) {
		end = i + len(optimisticLockMsg)
	}
	if d.Code == 0 {
		d.Code = 409
	}
	return set(d, KindConflict, ConfidenceHigh, strings.ReplaceAll(s.text[start:end], `\"`, `"`))
}

// optimisticLockMsg is the whole of the server's conflict message.
const optimisticLockMsg = phraseConflict + "; please apply your changes to the latest version and try again"

func matchInitializing(s *signals, d *Diagnosis) bool {
	i := strings.Index(s.text, phraseInitializing)
	if i < 0 {
		return false
	}
	if d.Code == 0 {
		d.Code = 429
	}
	return set(d, KindWatchCacheInitializing, ConfidenceHigh, phraseInitializing)
}

// matchWriteRV: a create that carried an RV, an update that carried none.
func matchWriteRV(s *signals, d *Diagnosis) bool {
	if strings.Contains(s.text, phraseSetOnCreate) {
		return set(d, KindResourceVersionSetOnCreate, ConfidenceHigh, phraseSetOnCreate)
	}
	i := strings.Index(s.text, phraseMissingOnUpdate)
	if i < 0 {
		return false
	}
	k := strings.LastIndex(s.text[max(0, i-64):i], qualRVField)
	if k < 0 {
		return false
	}
	start := max(0, i-64) + k
	if strings.HasSuffix(s.text[:start], "metadata.") {
		start -= len("metadata.")
	}
	if d.Code == 0 {
		d.Code = 422
	}
	return set(d, KindResourceVersionMissingOnUpdate, ConfidenceHigh, s.text[start:i+len(phraseMissingOnUpdate)])
}

// Invalid parameters: apiserver storage/interfaces.go and etcd3/store.go
// ("invalid resource version: %v", "invalid continue token: %v",
// "specifying resource version is not allowed when using continue"),
// storage/continue.go ("continue key is not valid"), apimachinery
// apis/meta/internalversion/validation ("resourceVersionMatch is forbidden
// ..."), storage/api_object_versioner.go (field.Invalid "resourceVersion").
var invalidRV = []string{
	"invalid resource version: ", "resourceVersion: Invalid value", "resourceVersionMatch is forbidden",
	"resourceVersionMatch: Unsupported value", "resourceVersionMatch \"exact\" is forbidden",
	"specifying resource version is not allowed when using continue",
}
var invalidContinue = []string{"invalid continue token", "continue key is not valid"}

func matchInvalid(s *signals, d *Diagnosis) bool {
	for _, p := range invalidContinue {
		if i := strings.Index(s.text, p); i >= 0 {
			return set(d, KindInvalidContinue, ConfidenceHigh, lineFrom(s.text, i))
		}
	}
	for _, p := range invalidRV {
		if i := strings.Index(s.text, p); i >= 0 {
			return set(d, KindInvalidResourceVersion, ConfidenceHigh, lineFrom(s.text, i))
		}
	}
	return false
}

// Connection breaks: Go's net and net/http2 wordings.
var connectionBroken = []string{
	"connection reset by peer", "http2: client connection lost", "http2: server sent GOAWAY",
	"unexpected EOF", "broken pipe", "use of closed network connection",
}

func matchConnection(s *signals, d *Diagnosis) bool {
	for _, p := range connectionBroken {
		if strings.Contains(s.text, p) {
			return set(d, KindConnectionReset, ConfidenceMedium, p)
		}
	}
	return false
}

// Watch ends: client-go rest/watch and tools/cache/reflector.go wordings,
// old and new ("watch of %v ended with: %v", "Watch closed", "very short
// watch", "Warning: watch ended with error"), apimachinery
// watch/streamwatcher.go ("unable to decode an event from the watch stream").
var watchEnded = []string{
	phraseDecodeFail, "very short watch", "Unexpected watch close", "watch ended with error",
	"Watch close",
}

func matchWatchEnded(s *signals, d *Diagnosis) bool {
	for _, p := range watchEnded {
		if i := strings.Index(s.text, p); i >= 0 {
			return set(d, KindWatchEnded, ConfidenceMedium, lineFrom(s.text, i))
		}
	}
	if i := strings.Index(s.text, phraseWatchOf); i >= 0 && strings.Contains(s.text[i:], qualEndedWith) {
		return set(d, KindWatchEnded, ConfidenceMedium, lineFrom(s.text, i))
	}
	return false
}

// Timeouts and throttling, by wording (apiserver server/filters/timeout.go,
// endpoints/handlers/finisher, server/filters/priority-and-fairness.go,
// apimachinery NewGenericServerResponse and NewServerTimeout, Go's net/http).
var timeoutWords = []string{
	"request did not complete within", "unable to return a response in the time allotted",
	"could not be completed at this time", "Client.Timeout exceeded", "context deadline exceeded", "i/o timeout",
}
var throttleWords = []string{"Too many requests", "too many requests", "Watch returned 429"}

// Other wrappers of a plain 410: the Java client's ReflectorRunnable
// ("ResourceVersion {} expired, will retry w/o resourceVersion") and
// ApiException (its message is the HTTP reason phrase), fabric8's Reflector
// ("Watch restarting due to http gone").
const (
	phraseJavaExpired = " expired, will retry w/o resourceVersion"
	phraseFabric8Gone = "restarting due to http gone"
	phraseJavaGone    = "ApiException: Gone"
	qualJavaRV        = "ResourceVersion "
)

func matchCodeOnly(s *signals, d *Diagnosis) bool {
	t := s.text
	switch {
	case s.code == 410 || s.reason == "Expired" || s.reason == "Gone":
		return matchGone(s, d)
	case strings.Contains(t, phraseJavaExpired):
		if i := strings.Index(t, qualJavaRV); i >= 0 {
			rv, _ := digitsAt(t, i+len(qualJavaRV))
			d.RequestedResourceVersion = orKeep(rv, d.RequestedResourceVersion)
		}
		return set(d, KindGone, ConfidenceMedium, lineFrom(t, max(0, strings.Index(t, qualJavaRV))))
	case strings.Contains(t, phraseFabric8Gone):
		return set(d, KindGone, ConfidenceLow, phraseFabric8Gone)
	case strings.Contains(t, phraseJavaGone):
		// The official Java client's message is the HTTP reason phrase of the 410.
		d.Code = 410
		return set(d, KindGone, ConfidenceLow, "Gone")
	case s.code == 429 || s.reason == "TooManyRequests" || containsAny(t, throttleWords):
		return set(d, KindTooManyRequests, wordConfidence(s, 429, "TooManyRequests", t, throttleWords), firstOf(t, throttleWords))
	}
	timeout := containsAny(t, timeoutWords)
	if s.code == 504 || s.reason == "Timeout" || s.reason == "ServerTimeout" || timeout {
		// A 504 on a list at resourceVersion=N with the body lost is how
		// TooLarge looks from outside; a watch never answers TooLarge (it
		// waits), and a plain timeout says so.
		if !timeout && s.code == 504 && s.requested != "" && s.requested != "0" && s.op != OpWatch && s.op != "" {
			return set(d, KindResourceVersionTooLarge, ConfidenceLow, "")
		}
		return set(d, KindRequestTimeout, wordConfidence(s, 504, "Timeout", t, timeoutWords), firstOf(t, timeoutWords))
	}
	if isServerCode(s.code) || s.reason == "InternalError" || s.reason == "ServiceUnavailable" ||
		strings.Contains(t, phraseInternal) || strings.Contains(t, phraseServerErr) {
		return set(d, KindServerError, ConfidenceLow, "")
	}
	return false
}

// isServerCode: the 5xx codes read as ServerError (504 is a timeout; other
// 5xx codes are not seen from the API server).
func isServerCode(c int) bool { return c == 500 || c == 502 || c == 503 }

func matchGone(s *signals, d *Diagnosis) bool {
	conf := ConfidenceLow
	if s.code == 410 && (s.reason == "Expired" || s.reason == "Gone" || s.requested != "") {
		// A 410 with its reason, or a 410 to a request that carried a
		// resourceVersion, is an expiry for sure; only the window is unknown.
		conf = ConfidenceMedium
	}
	switch s.op {
	case OpListContinue:
		return set(d, KindContinueExpired, ConfidenceLow, "")
	case OpListExact:
		return set(d, KindEtcdCompactedExactList, ConfidenceLow, "")
	}
	return set(d, KindGone, conf, "")
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

func codeConfidence(s *signals, code int, reason string) string {
	switch {
	case s.code == code && s.reason == reason:
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
