package diagnose

// The matchers of the errors users confuse with resourceVersion errors:
// conflicts, a cache still initializing, RVs where none belongs, invalid
// parameters, broken connections, ended watches, timeouts and throttling,
// and plain status codes without a message.

import (
	"strings"
)

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
	"Watch closed",
}

// wordWatchClose is client-go's info-level record of a watch that ended
// normally (reflector.go: `"Watch close" ... totalItems=N`, older releases
// "Watch close - *v1.Pod total N items received"): its 5 to 10 minute
// timeoutSeconds ran out. It is not an error unless it carries one.
const wordWatchClose = "Watch close"

// IsNormalWatchEnd reports whether text is client-go's record of a watch
// that ended normally, carrying no error.
func IsNormalWatchEnd(text string) bool {
	i := strings.Index(text, wordWatchClose)
	if i < 0 || strings.HasPrefix(text[i:], "Watch closed") {
		return false
	}
	return !strings.Contains(text, " err=") && !strings.Contains(text, "error")
}

func matchWatchEnded(s *signals, d *Diagnosis) bool {
	for _, p := range watchEnded {
		if i := strings.Index(s.text, p); i >= 0 {
			return set(d, KindWatchEnded, ConfidenceMedium, lineFrom(s.text, i))
		}
	}
	if i := strings.Index(s.text, wordWatchClose); i >= 0 && !IsNormalWatchEnd(s.text) {
		return set(d, KindWatchEnded, ConfidenceMedium, lineFrom(s.text, i))
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
	case s.says(410, "Expired", "Gone"):
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
	case s.says(429, "TooManyRequests") || containsAny(t, throttleWords):
		return set(d, KindTooManyRequests, wordConfidence(s, 429, "TooManyRequests", t, throttleWords), firstOf(t, throttleWords))
	}
	timeout := containsAny(t, timeoutWords)
	if s.says(504, "Timeout", "ServerTimeout") || timeout {
		// A 504 on a list, or a GET of one object, at resourceVersion=N
		// with the body lost is how TooLarge looks from outside (fresh
		// user try 52 F1: a GET's 504s were RequestTimeout); a watch
		// never answers TooLarge (it waits), and a plain timeout says so.
		if !timeout && s.code == 504 && s.requested != "" && s.requested != "0" && s.op != OpWatch && (s.op != "" || s.getOne) {
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
