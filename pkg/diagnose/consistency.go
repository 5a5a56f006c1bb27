package diagnose

import (
	"fmt"

	"github.com/watchrv/kubectl-watchrv/internal/rv"
)

// contradiction says why the numbers of d cannot come from one answer of
// an API server (or of etcd), "" when they can. It is the one rule over
// every parsed form: each kind's own condition on the numbers it prints,
// and every claim about the request's RV (the caller's, a URL in the text, the
// server's message) against the others. A diagnosis with such numbers is
// told as what the text says, never as what happened (withAdvice, summary).
func contradiction(d Diagnosis, s *signals) string {
	asked := s.requested
	req, old, cur := d.RequestedResourceVersion, d.OldestResourceVersion, d.CurrentResourceVersion
	for _, n := range []string{req, old, cur} {
		if n != "" && !rv.Valid(n) {
			// markNumbers notes which; no server issues such an RV, so no
			// server printed this answer either.
			return fmt.Sprintf("RV %s %s, and no API server issues such an RV", shortDigits(n), pastMax(n))
		}
	}
	if why := noRVSentContradiction(d, s); why != "" {
		return why
	}
	if why := cacheLagContradiction(d, s); why != "" {
		return why
	}
	switch d.Kind {
	case KindWatchCacheWindow, KindTooOldResourceVersion:
		if req == "0" {
			// RV 0 asks for any state: a watch or a list from it is served
			// from what the server holds, never answered too old (fresh
			// user try 42 F1: confidence high, "RV 0 is 581 behind").
			return "the requested RV 0 asks for any state, which an API server serves from what it holds: none answers too old to it"
		}
		// The lowered kind keeps the window words' numbers when it had
		// them (adversary try 32 F3: a list's "5 (2)" passed, the
		// watch's was rejected); a bare "too old" has no oldest RV.
		if atLeast(req, old) {
			// The watch cache says too old only for an RV below the
			// oldest it can serve: a watch from that RV itself starts.
			if d.Kind == KindTooOldResourceVersion {
				// Said of no watch: the request was another (adversary
				// try 33 F4: "a watch from 3 starts" of a list).
				return fmt.Sprintf("the requested RV %s is not below the oldest servable RV %s the words name, and the watch cache answers too old only below it", req, old)
			}
			return fmt.Sprintf("the requested RV %s is not below the oldest servable RV %s, and no API server answers too old then (a watch from %s starts)", req, old, old)
		}
	case KindEtcdV2IndexCleared:
		if atLeast(req, old) {
			return fmt.Sprintf("the requested index %s is not below the oldest index %s etcd v2 keeps, and etcd v2 answers \"cleared\" only below it", req, old)
		}
	case KindResourceVersionTooLarge:
		if cur != "0" && atLeast(cur, req) {
			return fmt.Sprintf("the requested RV %s is not above the current RV %s, and no API server answers TooLarge then (it serves the request)", req, cur)
		}
	case KindConsistentReadCacheLagging:
		if cur != "0" && atLeast(cur, req) {
			return fmt.Sprintf("the RV %s the read waits for is not above the watch cache's RV %s, and the cache answers 429 only while it is behind", req, cur)
		}
	case KindWatchEventLostAtCompaction:
		if asked != "" && atLeast(asked, old) {
			return fmt.Sprintf("the lost event's revision %s is not after the RV %s the watch started from, and a watch from %s gets only the events after it", old, asked, asked)
		}
	}
	return requestClaimsDiffer(d, s)
}

// requestClaimsDiffer: two claims about the request's RV that differ.
// The messages of the kinds below print the request's own RV, and any
// resourceVersion error answers the RV its request named.
func requestClaimsDiffer(d Diagnosis, s *signals) string {
	if c := advices[d.Kind].class; c != ClassExpired && c != ClassTooLarge && d.Kind != KindWatchEventLostAtCompaction {
		return ""
	}
	type claim struct{ who, rv string }
	claims := []claim{{"the RV given for the request", s.askedRV}, {"the URL in the text", s.urlRV}}
	switch d.Kind {
	case KindWatchCacheWindow, KindWatchCacheSnapshot, KindResourceVersionTooLarge, KindEtcdV2IndexCleared:
		claims = append(claims, claim{"the server's message", d.RequestedResourceVersion})
	case KindTooOldResourceVersion:
		// The watch cache's words lowered to this kind for the request
		// they do not fit (checkOperation) still print the request's RV
		// (adversary try 31 F1: a list from RV 300 answered "too old
		// resource version: 5 (300)" was not found inconsistent).
		if d.OldestResourceVersion != "" {
			claims = append(claims, claim{"the server's message", d.RequestedResourceVersion})
		}
	}
	var first claim
	for _, c := range claims {
		if !rv.Valid(c.rv) {
			continue
		}
		if first.rv == "" {
			first = c
			continue
		}
		if c.rv != first.rv {
			return fmt.Sprintf("%s names RV %s as the requested one, but %s names RV %s", first.who, first.rv, c.who, c.rv)
		}
	}
	return ""
}

// shortDigits shows a long run of digits by its head.
func shortDigits(n string) string {
	if len(n) > 20 {
		return n[:16] + "…"
	}
	return n
}

// atLeast: a and b are both RVs a server could issue, and a >= b.
func atLeast(a, b string) bool {
	return rv.Valid(a) && rv.Valid(b) && !rv.Less(a, b)
}

// inconsistentSummary is the verdict line of a text whose numbers
// contradict each other: what it says, and why that cannot be.
func inconsistentSummary(d Diagnosis) string {
	says := map[Class]string{ClassExpired: "too old", ClassTooLarge: "too new"}[d.Class]
	if says == "" {
		says = d.Kind
	}
	return fmt.Sprintf("%s, %s, but %s: %s: confidence low", says, said(d, "says the text", "says the server's answer"),
		said(d, "its numbers are inconsistent", "it cannot be an API server's answer to this request"), d.Inconsistent)
}

// inconsistentAdvice tells the texts of a kind as what the text claims, not
// as what happened: the numbers are left out, and each paragraph says it
// holds only if the error is real.
func inconsistentAdvice(d Diagnosis, a advice) Diagnosis {
	real := said(d, "If it is a real "+d.Kind+" error (with other numbers): ", "If a real API server gives a "+d.Kind+" error: ")
	d.What = said(d,
		fmt.Sprintf("Not known. The text reads as %s / %s, but its numbers cannot come from one answer: %s. It was edited, cut and pieced together, or written by something other than an API server.", d.Class, d.Kind, d.Inconsistent),
		fmt.Sprintf("Not known. The server's answer reads as %s / %s, but no API server answers so: %s. Something other than the API server answered (a proxy, a shim or a fake in front of it), or the server is broken.", d.Class, d.Kind, d.Inconsistent))
	// The kind's texts without its numbers: the kind is what the text
	// claims (its serving facts hold of a real one), the numbers are not.
	generic := Diagnosis{Kind: d.Kind}
	d.Why = real + fillTexts(generic, a.why)
	d.ClientGo = real + fillTexts(generic, a.clientGo)
	d.Fix = said(d, "Find the original error (the server's JSON Status, or the whole log line) before acting on this text. ",
		"Do not act on this answer's numbers: find out what answered the request (the server address of the kubeconfig, and any proxy on the way). ") + real + fillTexts(generic, a.fix)
	return d
}
