package diagnose

// The matchers of resourceVersion errors: too new (TooLarge), too old (the
// watch cache, etcd, continue tokens, etcd v2), and the compaction edge.

import (
	"fmt"
	"strings"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// phraseAt finds phrase in text as the API server writes it, else in any
// other case (a log pipeline or a client that capitalizes or lowercases a
// message, or writes it in capitals): reworded then. One rule for both
// RV phrases (adversary try 35 F5, try 36 F3 and F7: the lowercase
// TooLarge lost its numbers, the capitalized Expired was unrecognized).
// Of several, the first that carries its numbers (": " and a digit) is
// the one read, in either case: a bare mention before them (a client's
// wrapper, "Too large resource version; too large resource version: 10,
// current: 5") does not hide them.
func phraseAt(text, phrase string) (int, bool) {
	// ASCII case only, so that every byte offset in lower is text's.
	lower, want := asciiLower(text), asciiLower(phrase)
	best, bestScore, bestReworded := -1, -1, false
	for off := 0; off < len(lower); {
		k := strings.Index(lower[off:], want)
		if k < 0 {
			break
		}
		i := off + k
		exact := text[i:i+len(phrase)] == phrase
		score := 0
		if firstNumbered(text, i, phrase) {
			score += 2
		}
		if exact {
			score++
		}
		if score > bestScore {
			best, bestScore, bestReworded = i, score, !exact
		}
		off = i + len(phrase)
	}
	return best, bestReworded
}

// firstNumbered: the phrase at i carries its numbers (": " and a digit).
func firstNumbered(text string, i int, phrase string) bool {
	rest := text[i+len(phrase):]
	return len(rest) > 2 && strings.HasPrefix(rest, ": ") && rest[2] >= '0' && rest[2] <= '9'
}

// asciiLower is s with A-Z in lower case, every other byte as it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// rewordedNote says a phrase was found only in another case: the numbers
// read from it are kept, the confidence is at most medium.
func rewordedNote(d *Diagnosis, phrase string) {
	note(d, fmt.Sprintf("the words are the API server's in another case (it writes %q): the line was reworded", phrase))
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
	nums := readNumbers(s.text, i+len(phraseTooLarge), tooLargeNumbers)
	n, m, end := nums.first, nums.second, nums.end
	d.RequestedResourceVersion, d.CurrentResourceVersion = orKeep(n, d.RequestedResourceVersion), m
	d.Gap = rv.Gap(n, m)
	start := i
	if strings.HasSuffix(s.text[:i], "Timeout: ") {
		start = i - len("Timeout: ")
	}
	conf := ConfidenceHigh
	switch {
	case nums.badFirst != "" || nums.badSecond != "":
		// Before the empty form: numbers that are there are never
		// said to be empty.
		conf = ConfidenceLow
		d.malformed = nums.malformed(tooLargeNumbers)
		note(d, nums.notRVsNote(tooLargeNumbers))
	case n == "" && m == "":
		// The form without its numbers tells no more than the bare
		// words (adversary try 35 F5: "Too large resource version: ,
		// current: " was more certain than "Too large resource version").
		conf = ConfidenceLow
		note(d, "the numbers the API server prints with these words are empty: "+s.unknownRVs("current")+", and so is the gap")
	case n == "" || m == "":
		conf = ConfidenceMedium
	}
	if n != "" && m == "" && nums.badSecond == "" {
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
	nums := readNumbers(s.text, i+len(phraseTooOld), tooOldNumbers)
	x, y, j, k := nums.first, nums.second, nums.firstEnd, nums.end
	if nums.badFirst != "" || nums.badSecond != "" {
		// A token that is no RV is said so, the number beside it is
		// read, and the quote holds both (adversary F6).
		d.malformed = nums.malformed(tooOldNumbers)
		note(d, nums.notRVsNote(tooOldNumbers))
		if y != "" && nums.closed {
			d.OldestResourceVersion = y
		}
		if x == "" {
			// Which RV expired is not known: no window story.
			return set(d, KindTooOldResourceVersion, ConfidenceLow, s.text[i:k])
		}
		d.RequestedResourceVersion = x
		return set(d, KindWatchCacheWindow, ConfidenceLow, s.text[i:k])
	}
	if x == "" {
		// The server always prints the requested RV: this text was cut, or
		// written by a client, a proxy or a fake server.
		note(d, "the wording has none of the numbers the API server prints with it (\"too old resource version: X (Y)\"): "+s.unknownRVs("oldest")+", and so is which window expired")
		return set(d, KindTooOldResourceVersion, ConfidenceLow, s.text[i:i+len(phraseTooOld)])
	}
	d.RequestedResourceVersion = x
	if nums.hasSecond {
		// Read as the requested RV is: a full stop after it is
		// punctuation (adversary try 40 F3: "100. (200.)" was "cut").
		if y != "" && nums.closed {
			d.OldestResourceVersion = y
			d.Gap = rv.Gap(y, x)
			return set(d, KindWatchCacheWindow, ConfidenceHigh, s.text[i:k])
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
	return matchStorageTooOld(s, d, phraseWatchTooOld, KindEtcdCompactedWatch)
}

func matchEtcdList(s *signals, d *Diagnosis) bool {
	return matchStorageTooOld(s, d, phraseListTooOld, KindEtcdCompactedExactList)
}

// matchStorageTooOld reads storage's 410 words (no numbers) as phraseAt
// finds the other RV phrases: in any case (reworded then, at most
// medium), quoted as the text holds them, with their full stop only when
// the text has it (a status line leaves it out).
func matchStorageTooOld(s *signals, d *Diagnosis, phrase, kind string) bool {
	i, reworded := phraseAt(s.text, phrase)
	if i < 0 {
		return false
	}
	end := i + len(phrase)
	if strings.HasPrefix(s.text[end:], ".") {
		end++
	}
	conf := ConfidenceHigh
	if reworded {
		rewordedNote(d, phrase)
		conf = ConfidenceMedium
	}
	return set(d, kind, conf, s.text[i:end])
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
