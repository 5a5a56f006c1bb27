package diagnose

import (
	"fmt"
	"net/http"

	"github.com/watchrv/kubectl-watchrv/internal/text"
)

// A diagnosis's words name the status code that was measured, never
// another (adversary try 25 F3: a 503 carrying etcd's compaction message
// was told "reported as 500 Internal Error ... report the 500"). The HTTP
// status wins over anything the words or a Status's reason say: it is
// what the transport writes into the Status's code (apiclient asStatus),
// what ClassifyFailure and so the exit code read, and what client-go acts
// on. A kind whose texts (advice.go, summary) are true only for some codes
// says so here; classify never gives it to an answer of another code.

// kindCodes are the code each code-tied kind's texts are true for. A kind
// not here names no code, or names the measured one (serverWorded).
var kindCodes = map[string]int{
	// The Expired kinds: every one of them is a 410 (their texts and the
	// Reflector's relist, which needs a 410 or a TooLarge 504).
	KindWatchCacheWindow:               410,
	KindWatchCacheSnapshot:             410,
	KindEtcdCompactedWatch:             410,
	KindEtcdCompactedExactList:         410,
	KindContinueExpired:                410,
	KindContinueExpiredInconsistent:    410,
	KindTooOldResourceVersion:          410,
	KindGone:                           410,
	KindResourceVersionTooLarge:        504,
	KindConsistentReadCacheLagging:     429,
	KindTooManyRequests:                429,
	KindWatchCacheInitializing:         429,
	KindConflict:                       409,
	KindResourceVersionMissingOnUpdate: 422,
	KindInvalidContinue:                400,
	KindResourceVersionSetOnCreate:     500,
	KindWatchEventLostAtCompaction:     500,
}

// serverWorded kinds are worded with the measured code ({code}): true for
// any server error.
var serverWorded = map[string]bool{KindInternalErrorAtCompaction: true, KindServerError: true}

// fitsCode: kind's texts are true for code (0: no code was measured).
func fitsCode(kind string, code int) bool {
	if code == 0 {
		return true
	}
	if want, tied := kindCodes[kind]; tied {
		return code == want
	}
	return !serverWorded[kind] || code >= 500 && code <= 599
}

// byMeasuredCode is the diagnosis of an answer whose words are those of
// kind wordsOf but whose code is another: what the code alone says
// (matchCodeOnly), with a note of the words; unrecognized when the code
// alone says nothing the plugin knows.
func byMeasuredCode(s *signals, wordsOf string, message string) Diagnosis {
	bare := &signals{code: s.code, op: s.op, requested: s.requested, askedRV: s.askedRV, source: s.source, live: s.live, noRVSent: s.noRVSent}
	d := Diagnosis{Code: int32(s.code), Reason: s.reason, Operation: s.op, Source: s.source, RequestedResourceVersion: s.requested, live: s.live, noRVSent: s.noRVSent}
	comesAs := "a server error"
	if c, tied := kindCodes[wordsOf]; tied {
		comesAs = "a " + fmt.Sprint(c)
	}
	said := fmt.Sprintf("the server answered %s, and its words (%q) are those of %s, which comes as %s: the status code is what clients act on (client-go relists only on a 410, or a 504 for a too new RV), so the answer is told as its code says", codeWords(s.code), text.Shorten(text.OneLine(message), 120), wordsOf, comesAs)
	if !matchCodeOnly(bare, &d) || !fitsCode(d.Kind, s.code) {
		u := unrecognized()
		u.Code, u.Reason, u.Source = d.Code, d.Reason, d.Source
		note(&u, said)
		return u
	}
	d.Message = message
	note(&d, said)
	d = withAdvice(d)
	d.Summary = summary(d)
	return d
}

// codeWords is a measured code as the texts say it: "503 Service
// Unavailable"; "a 5xx error" when no code was measured.
func codeWords(code int) string {
	if code == 0 {
		return "a 5xx error"
	}
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprint(code)
}

// codeNumber is a measured code alone ("503"), "5xx" when none was.
func codeNumber(code int) string {
	if code == 0 {
		return "5xx"
	}
	return fmt.Sprint(code)
}

// says: the answer is of this code, by its measured HTTP status, or, only
// when no status was measured, by a Status reason of that code. A reason
// never outvotes the status (adversary try 28 F6: a 504 whose Status said
// TooManyRequests was taken as the watch cache's 429 and then, its code
// not fitting, as no resourceVersion error at all).
func (s *signals) says(code int, reasons ...string) bool {
	if s.code != 0 {
		return s.code == code
	}
	for _, r := range reasons {
		if s.reason == r {
			return true
		}
	}
	return false
}
