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

// kindCodes are the codes each code-tied kind's texts are true for. A
// kind not here names no code, or names the measured one ({code}).
var kindCodes = map[string]func(code int) bool{
	// The Expired kinds: every one of them is a 410 (their texts and the
	// Reflector's relist, which needs a 410 or a TooLarge 504).
	KindWatchCacheWindow:               is(410),
	KindWatchCacheSnapshot:             is(410),
	KindEtcdCompactedWatch:             is(410),
	KindEtcdCompactedExactList:         is(410),
	KindContinueExpired:                is(410),
	KindContinueExpiredInconsistent:    is(410),
	KindTooOldResourceVersion:          is(410),
	KindGone:                           is(410),
	KindResourceVersionTooLarge:        is(504),
	KindConsistentReadCacheLagging:     is(429),
	KindTooManyRequests:                is(429),
	KindWatchCacheInitializing:         is(429),
	KindConflict:                       is(409),
	KindResourceVersionMissingOnUpdate: is(422),
	KindInvalidContinue:                is(400),
	KindResourceVersionSetOnCreate:     is(500),
	KindWatchEventLostAtCompaction:     is(500),
	// Worded with the measured code ({code}): any server error.
	KindInternalErrorAtCompaction: isServerError,
	KindServerError:               isServerError,
}

func is(want int) func(int) bool { return func(c int) bool { return c == want } }

func isServerError(c int) bool { return c >= 500 && c <= 599 }

// fitsCode: kind's texts are true for code (0: no code was measured).
func fitsCode(kind string, code int) bool {
	fits, tied := kindCodes[kind]
	return !tied || code == 0 || fits(code)
}

// byMeasuredCode is the diagnosis of an answer whose words are those of
// kind wordsOf but whose code is another: what the code alone says
// (matchCodeOnly), with a note of the words; unrecognized when the code
// alone says nothing the plugin knows.
func byMeasuredCode(s *signals, wordsOf string, message string) Diagnosis {
	bare := &signals{code: s.code, op: s.op, requested: s.requested, askedRV: s.askedRV, source: s.source}
	d := Diagnosis{Code: int32(s.code), Reason: s.reason, Operation: s.op, Source: s.source, RequestedResourceVersion: s.requested}
	said := fmt.Sprintf("the server answered %s, and its words (%q) are those of %s, which comes as another code: the status code is what clients act on (client-go relists only on a 410, or a 504 for a too new RV), so the answer is told as its code says", codeWords(s.code), text.Shorten(text.OneLine(message), 120), wordsOf)
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
