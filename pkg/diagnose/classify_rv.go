package diagnose

// The matchers of resourceVersion errors: too new (TooLarge), too old (the
// watch cache, etcd, continue tokens, etcd v2), and the compaction edge.

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// phraseAt finds phrase in text as the API server writes it, else with
// its first letter in the other case (a log pipeline or a client that
// capitalizes or lowercases a message): reworded then. One rule for both
// RV phrases (adversary try 35 F5, try 36 F3 and F7: the lowercase
// TooLarge lost its numbers, the capitalized Expired was unrecognized).
func phraseAt(text, phrase string) (int, bool) {
	if i := strings.Index(text, phrase); i >= 0 {
		return i, false
	}
	return strings.Index(text, caseVariant(phrase)), true
}

// caseVariant is phrase with its first letter in the other case.
func caseVariant(phrase string) string {
	first := phrase[:1]
	if up := strings.ToUpper(first); up != first {
		return up + phrase[1:]
	}
	return strings.ToLower(first) + phrase[1:]
}

// rewordedNote says a phrase was found only in another case: the numbers
// read from it are kept, the confidence is at most medium.
func rewordedNote(d *Diagnosis, phrase string) {
	note(d, fmt.Sprintf("the words are the API server's with their first letter in another case (it writes %q): the line was reworded", phrase))
}

func capMedium(c string) string {
	if c == ConfidenceHigh {
		return ConfidenceMedium
	}
	return c
}

func matchTooLarge(s *signals, d *Diagnosis) bool {
	i, reworded := phraseAt(s.text, phraseTooLarge)
	if i >= 0 && reworded {
		rewordedNote(d, phraseTooLarge)
	}
	if i >= 0 && !strings.HasPrefix(s.text[i+len(phraseTooLarge):], ": ") && !s.causeLarge {
		// The words alone are the status cause's message (client-go's
		// reflector matches them): the API server's own message always
		// carries "N, current: M". Like the bare "too old resource
		// version", the text was cut or retold: the class is known, the
		// numbers are not (fresh user try 33 F5).
		note(d, "the wording has none of the numbers the API server prints with it (\"Too large resource version: N, current: M\"): "+s.unknownRVs("current")+", and so is the gap")
		return set(d, KindResourceVersionTooLarge, ConfidenceLow, s.text[i:i+len(phraseTooLarge)])
	}
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
	d.Gap = rv.Gap(n, m)
	start := i
	if strings.HasSuffix(s.text[:i], "Timeout: ") {
		start = i - len("Timeout: ")
	}
	conf := ConfidenceHigh
	switch {
	case n == "" && m == "":
		// The form without its numbers tells no more than the bare
		// words (adversary try 35 F5: "Too large resource version: ,
		// current: " was more certain than "Too large resource version").
		conf = ConfidenceLow
		note(d, "the numbers the API server prints with these words are empty: "+s.unknownRVs("current")+", and so is the gap")
	case n == "" || m == "":
		conf = ConfidenceMedium
	}
	if n != "" && m == "" {
		note(d, "the current RV is missing from this text (the server prints \"Too large resource version: N, current: M\"): the gap is unknown")
	}
	kind := KindResourceVersionTooLarge
	if s.says(429, "TooManyRequests") {
		kind = KindConsistentReadCacheLagging
	}
	if reworded {
		conf = capMedium(conf)
	}
	return set(d, kind, conf, s.text[start:end])
}

func matchTooOld(s *signals, d *Diagnosis) bool {
	i, reworded := phraseAt(s.text, phraseTooOld)
	if i < 0 {
		return false
	}
	if reworded {
		rewordedNote(d, phraseTooOld)
		defer func() { d.Confidence = capMedium(d.Confidence) }()
	}
	x, j := "", i+len(phraseTooOld)
	if strings.HasPrefix(s.text[j:], ": ") {
		x, j = digitsAt(s.text, j+2)
	}
	if x == "" {
		// The server always prints the requested RV: this text was cut, or
		// written by a client, a proxy or a fake server.
		note(d, "the wording has none of the numbers the API server prints with it (\"too old resource version: X (Y)\"): "+s.unknownRVs("oldest")+", and so is which window expired")
		return set(d, KindTooOldResourceVersion, ConfidenceLow, s.text[i:i+len(phraseTooOld)])
	}
	d.RequestedResourceVersion = x
	if strings.HasPrefix(s.text[j:], " (") {
		y, k := digitsAt(s.text, j+2)
		if y != "" && k < len(s.text) && s.text[k] == ')' {
			d.OldestResourceVersion = y
			d.Gap = rv.Gap(y, x)
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
	return set(d, KindEtcdCompactedExactList, ConfidenceHigh, phraseListTooOld+".")
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
				d.Gap = rv.Gap(oldest, req)
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

// unknownRVs says which RVs a text without its numbers leaves unknown:
// the requested one is known when the request's own RV was given (--rv,
// or the request the answer came to), the other ("current", "oldest")
// never (fresh user try 35 F3: "the requested ... RVs are unknown" beside
// "requested 5000" of --rv 5000).
func (s *signals) unknownRVs(other string) string {
	if s.requested != "" {
		return "the " + other + " RV is unknown (the requested one, " + s.requested + ", is the request's, not the text's)"
	}
	return "the requested and " + other + " RVs are unknown"
}
