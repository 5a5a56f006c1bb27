package diagnose

import (
	"fmt"
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
// of a watch that sent none). TooLarge only of a plain watch: a watch
// cache that lags storage answers a consistent read (no RV: a list, a
// streaming list; consistentReadOp) with "Too large resource version"
// when it cannot catch up in time (the cacher's 429,
// ConsistentReadCacheLagging, and the streaming list's 504 of
// waitUntilFreshAndBlock), so that answer is the server's own; a plain
// watch that sent none starts at the current state, no consistent read
// (fresh user try 29 F3, adversary try 29 F2). A request the plugin sent
// with resourceVersion 0 asks for any state the server holds (the watch
// cache's, or storage's newest), with no wait for a newer one: no API
// server answers it too old or too new either (adversary try 30 F4).
func noRVSentContradiction(d Diagnosis, s *signals) string {
	if sentRVZero(s) {
		switch advices[d.Kind].class {
		case ClassExpired:
			return "the request sent resourceVersion 0 (any state the server holds), and no API server answers such a request too old"
		case ClassTooLarge:
			return "the request sent resourceVersion 0 (any state the server holds, with no wait for a newer one), and no API server answers such a request too new"
		}
		return ""
	}
	if !s.noRVSent || s.askedRV != "" {
		return ""
	}
	switch advices[d.Kind].class {
	case ClassExpired:
		return "the request sent no resourceVersion (it reads the current state), and no API server answers such a request too old"
	case ClassTooLarge:
		if s.op == OpWatch {
			return "the watch sent no resourceVersion and no sendInitialEvents (it starts at the current state, no consistent read that waits for a watch cache), and no API server answers such a watch too new"
		}
	}
	return ""
}

// sentRVZero: the plugin itself sent the request with resourceVersion 0
// (a live answer: a pasted text's RV is the text's claim).
func sentRVZero(s *signals) bool { return s.live && s.askedRV == "0" }

// cacheLagContradiction: the watch cache's 429 "Too large resource
// version" (ConsistentReadCacheLagging) answers only a consistent read, a
// list with resourceVersion unset and no continue token (storage/cacher
// delegator.go GetList); a live answer to any other request the plugin
// sent cannot be it (adversary try 30 F2: a plain watch and a list from RV
// 300 were said to meet a lagging cache's consistent read).
func cacheLagContradiction(d Diagnosis, s *signals) string {
	if d.Kind != KindConsistentReadCacheLagging || !s.live {
		return ""
	}
	switch {
	case s.op != "" && s.op != OpList:
		// A streaming list is a consistent read too, but the cacher
		// answers its lag with a 504 (waitUntilFreshAndBlock), never a
		// 429 (fresh user try 31 F1: "no consistent read" of one).
		return fmt.Sprintf("the request was a %s, and the watch cache answers 429 \"Too large resource version\" only to a list with resourceVersion unset and no continue token (GetList's consistent read; a streaming list that waits gets a 504)", opWords(s.op))
	case s.askedRV != "":
		return fmt.Sprintf("the request sent resourceVersion %s, and the watch cache answers 429 \"Too large resource version\" only to a list with resourceVersion unset and no continue token", s.askedRV)
	}
	return ""
}

// consistentReadOp: the requests whose no-RV form is a consistent read a
// lagging watch cache can answer "Too large resource version".
func consistentReadOp(op string) bool { return op == OpList || op == OpStreamingList }

// consistentReadLag: d is a TooLarge answer to a consistent read that
// sent no resourceVersion (consistentRead).
func consistentReadLag(d Diagnosis) bool {
	return d.noRVSent && d.Inconsistent == "" && d.Class == ClassTooLarge && d.Kind == KindResourceVersionTooLarge &&
		d.RequestedResourceVersion != "" && consistentReadOp(d.Operation)
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
		base := strings.TrimSuffix(d.Fix, findFull)
		d.Fix = base + "how far behind the RV was is not known: the server's answer has none of the numbers the API server prints with it."
		if d.OldestResourceVersion != "" {
			// The watch cache's words lowered for a request they do not
			// fit: the numbers are there; which window is not known
			// (adversary try 31 F1: "has none of the numbers" of "too
			// old resource version: 5 (300)").
			d.Fix = base + "which window expired is not known: the answer's words are the watch cache's answer to a watch, and this request was no watch."
		}
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
// F5: "the request asked for RV 500" of a watch that sent none). Its fix
// is the cacher's 429's: the consistent read was what failed, so doing it
// again now is no fix (adversary try 29 F2).
func consistentRead(d Diagnosis) Diagnosis {
	if !consistentReadLag(d) {
		return d
	}
	d.Notes = append(d.Notes, "the request sent no resourceVersion: RV "+d.RequestedResourceVersion+" is the one this API server's watch cache had to reach to serve a consistent read (storage's current RV), so its watch cache lags storage; the request's own RV is not the problem")
	d.Fix = consistentReadFix
	return d
}

// consistentReadFix is the fix of a consistent read its lagging watch
// cache could not serve, a 504 TooLarge or the cacher's 429 alike.
const consistentReadFix = "Retry after a while; if it persists, check the API server's watch cache and etcd latency (apiserver_watch_cache_* and etcd_request_duration_seconds metrics)."

// opWords names an operation as a sentence does.
func opWords(op string) string {
	switch op {
	case OpWatch:
		return "watch"
	case OpStreamingList:
		return "streaming list (a watch with sendInitialEvents)"
	case OpListExact:
		return "list at an exact resourceVersion"
	case OpListContinue:
		return "list's continue page"
	}
	return op
}
