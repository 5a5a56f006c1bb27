package diagnose

import (
	"strings"
)

// said is the one switch between the two sources a diagnosis reads: a
// pasted text (explain-error, a log line), which may have been cut,
// edited or pieced together and whose original can be looked for, and
// an answer the plugin received itself (Context.Live: a watch's HTTP
// status, an ERROR event, a probe's answer), whose Status the plugin
// holds whole: nothing was pieced together, and there is no original
// to find or paste (adversary try 28 F5). Every text that names its
// source goes through said.
func said(d Diagnosis, pasted, live string) string {
	if d.live {
		return live
	}
	return pasted
}

// noRVSentContradiction: an Expired answer to a request known to have
// sent no resourceVersion. Such a request reads the current state, so no
// API server answers it too old: the answer cannot be the API server's
// own (adversary try 28 F5: "the watch asked for the events after RV 400"
// of a watch that sent none). Not TooLarge: a watch cache that lags
// storage answers a consistent read (no RV: a list, a streaming list) with
// "Too large resource version" when it cannot catch up in time (the
// cacher's 429, ConsistentReadCacheLagging, and the streaming list's 504
// of waitUntilFreshAndBlock), so that answer is the server's own.
func noRVSentContradiction(d Diagnosis, s *signals) string {
	if !s.noRVSent || s.askedRV != "" || advices[d.Kind].class != ClassExpired {
		return ""
	}
	return "the request sent no resourceVersion (it reads the current state), and no API server answers such a request too old"
}

// toKnowWindow ends the fix of a bare 410 read from a pasted text.
const toKnowWindow = "to know which window, paste the full message or JSON Status."

// liveFix: a fix that asks for the original of an answer the plugin
// holds whole says instead that the answer did not say it.
func liveFix(d Diagnosis) Diagnosis {
	d = consistentRead(d)
	if d.live && strings.HasSuffix(d.Fix, toKnowWindow) {
		d.Fix = strings.TrimSuffix(d.Fix, toKnowWindow) + "which window expired is not known: the server's answer names none (no message the API server writes with it)."
	}
	if d.live && d.Kind == KindTooOldResourceVersion && strings.HasSuffix(d.Fix, findFull) {
		d.Fix = strings.TrimSuffix(d.Fix, findFull) + "how far behind the RV was is not known: the server's answer has none of the numbers the API server prints with it."
	}
	if d.live {
		d.Why = strings.Replace(d.Why, cutLine, "An answer without them was not written by the API server as it is (a proxy, a shim or a fake answered)", 1)
	}
	return d
}

// cutLine is what the Why of a "too old" text without its numbers says of
// a pasted text.
const cutLine = "Without the numbers the line was cut, reworded by a client or a log pipeline, or written by a proxy or a test fake"

// findFull ends the fix of a "too old" text without its numbers.
const findFull = "to know how far behind the RV was, find the full message (the server's Status, or the whole log line)."

// consistentRead (and summary's words): a TooLarge answer to a request that sent no
// resourceVersion (a consistent read: a list, a streaming list) names the
// RV the server waited for, storage's current one, which its watch cache
// did not reach in time; the request asked for none (adversary try 28
// F5: "the request asked for RV 500" of a watch that sent none).
func consistentRead(d Diagnosis) Diagnosis {
	if !d.noRVSent || d.Class != ClassTooLarge || d.RequestedResourceVersion == "" {
		return d
	}
	d.Notes = append(d.Notes, "the request sent no resourceVersion: RV "+d.RequestedResourceVersion+" is the one this API server's watch cache had to reach to serve a consistent read (storage's current RV), so its watch cache lags storage; the request's own RV is not the problem")
	return d
}
