package diagnose

import (
	"strings"
	"testing"
)

// TestReconcile: a kind that --check's own request contradicts is not
// kept at its confidence; a check that agrees, works, or tried nothing
// leaves the diagnosis as it is. The answers are the servers' own
// wordings, as ../shared/reference/rv-semantics.md records them.
func TestReconcile(t *testing.T) {
	cacheWindow := FromText("too old resource version: 5 (9)")
	if cacheWindow.Kind != KindWatchCacheWindow || cacheWindow.Confidence != ConfidenceHigh {
		t.Fatalf("the watch cache's 410 classified as %s/%s", cacheWindow.Kind, cacheWindow.Confidence)
	}
	for _, c := range []struct {
		name   string
		tried  *Tried
		lowers bool
	}{
		{"storage refuses it now", &Tried{Request: "watch from RV 5", Refused: true, Answer: "410 Expired: The resourceVersion for the provided watch is too old."}, true},
		{"the watch cache refuses it now", &Tried{Request: "watch from RV 5", Refused: true, Answer: "410 Expired: too old resource version: 5 (12)"}, false},
		{"an answer of another class", &Tried{Request: "watch from RV 5", Answer: "403 Forbidden: configmaps is forbidden"}, false},
		{"a 500 that quotes storage's words", &Tried{Request: "watch from RV 5", Answer: "500 InternalError: The resourceVersion for the provided watch is too old."}, false},
		{"nothing tried", nil, false},
	} {
		got := Reconcile(cacheWindow, Check{Tried: c.tried})
		lowered := got.Confidence == ConfidenceLow && len(got.Notes) == len(cacheWindow.Notes)+1 && strings.Contains(got.Notes[len(got.Notes)-1], KindEtcdCompactedWatch)
		if lowered != c.lowers || (!c.lowers && (got.Confidence != ConfidenceHigh || len(got.Notes) != len(cacheWindow.Notes))) {
			t.Errorf("%s: confidence %s, notes %q (want lowered: %v)", c.name, got.Confidence, got.Notes, c.lowers)
		}
		if got.Kind != cacheWindow.Kind {
			t.Errorf("%s: the text's kind changed to %s: the text still says what it says", c.name, got.Kind)
		}
	}
}

// A text that names who answered a watch, checked on a server whose
// /metrics shows the other one serves the resource's watches now: lowered,
// the fact named, the text's kind kept, in both directions (a fresh user,
// cache off: "high", blaming a cache the server lacks; fresh user try 26
// F3: storage's words on a server with a watch cache kept "high"). A fact
// that agrees with the text, or a text that names no answerer, changes
// nothing.
func TestReconcileNoWatchCache(t *testing.T) {
	// Nothing tried: a request that works now is a fact of its own
	// (TestReconcileWorksNow).
	var works *Tried
	const cacheText, storageText = "too old resource version: 5 (9)", "The resourceVersion for the provided watch is too old."
	for _, c := range []struct {
		name, text string
		noCache    bool // the server's /metrics: no watch cache for it (else: one)
		note       string
	}{
		{"cache's words, no cache", cacheText, true, "this server has no watch cache for configmaps now"},
		{"storage's words, a cache", storageText, false, "this server has a watch cache for configmaps now"},
		{"cache's words, a cache", cacheText, false, ""},
		{"storage's words, no cache", storageText, true, ""},
		{"an exact list's words, a cache", "The resourceVersion for the provided list is too old.", false, ""},
		// fresh user try 29 F6: the watch cache's lag words weigh as its
		// 410's do (one rule); the 504's words are storage's too (fresh
		// user try 30 F2: a server without a watch cache answers a list
		// from a future RV with them), so nothing weighs against them.
		{"TooLarge's words, no cache", "Timeout: Too large resource version: 560, current: 550", true, ""},
		{"TooLarge's words, a cache", "Timeout: Too large resource version: 560, current: 550", false, ""},
		{"a lagging consistent read, no cache", "429 TooManyRequests: Too large resource version: 560, current: 550", true, "this server has no watch cache for configmaps now"},
	} {
		d := FromText(c.text)
		got := Reconcile(d, Check{Resource: "configmaps", NoWatchCache: c.noCache, WatchCache: !c.noCache, Tried: works})
		if got.Kind != d.Kind {
			t.Errorf("%s: the kind changed to %s: the text still says what it says", c.name, got.Kind)
		}
		notes := strings.Join(got.Notes, "\n")
		if c.note == "" {
			if got.Confidence != d.Confidence || len(got.Notes) != len(d.Notes) {
				t.Errorf("%s: changed by a fact that agrees: %s %q", c.name, got.Confidence, got.Notes)
			}
			continue
		}
		if got.Confidence != ConfidenceLow || !strings.Contains(notes, c.note) {
			t.Errorf("%s: confidence %s, notes %q; want low and %q", c.name, got.Confidence, got.Notes, c.note)
		}
	}
}

// The text says the RV expired; the same request, tried now, works on
// this server: no server's window moves back, so every Expired kind's
// claim about "this API server" is contradicted (adversary try 29 F3:
// "the oldest RV this API server can still serve is 380" stayed high
// while a watch from RV 350 replayed to the current RV). It was "it
// works now: not lowered" in TestReconcile before: changed deliberately.
// A TooLarge text's request working now agrees with a lag: nothing.
func TestReconcileWorksNow(t *testing.T) {
	works := &Tried{Request: "a watch from RV 350", Works: true, Answer: "replayed 1 change without an error, up to RV 401"}
	for _, c := range []struct {
		name, text string
		lowers     bool
	}{
		{"the watch cache's window", "too old resource version: 350 (380)", true},
		{"storage's compaction, watch", "The resourceVersion for the provided watch is too old.", true},
		{"storage's compaction, exact list", "The resourceVersion for the provided list is too old.", true},
		{"the cache's snapshots", "too old resource version: 350", true},
		{"a bare 410", "410 Gone: too old resource version", true},
		{"TooLarge, a lag", "Timeout: Too large resource version: 350, current: 300", false},
	} {
		d := FromTextContext(c.text, Context{RequestedResourceVersion: "350"})
		got := Reconcile(d, Check{Resource: "configmaps", RequestedResourceVersion: "350", CurrentResourceVersion: "401", Behind: "51", Tried: works})
		notes := strings.Join(got.Notes, "\n")
		if !c.lowers {
			if got.Confidence != d.Confidence || len(got.Notes) != len(d.Notes) {
				t.Errorf("%s: changed by a request that agrees: %s %q", c.name, got.Confidence, got.Notes)
			}
			continue
		}
		if got.Confidence != ConfidenceLow || len(got.Notes) != len(d.Notes)+1 || !strings.Contains(notes, "works on this server") || !strings.Contains(notes, "another API server") {
			t.Errorf("%s: confidence %s, notes %q: want low and one note saying it works on this server", c.name, got.Confidence, got.Notes)
		}
		if d.Inconsistent == "" && (!strings.HasPrefix(got.Summary, "the text says: ") || (got.What != "" && !strings.HasPrefix(got.What, "If RV 350 could no longer be served"))) {
			t.Errorf("%s: the claim kept as fact: %q / %q", c.name, got.Summary, got.What)
		}
		if got.Kind != d.Kind {
			t.Errorf("%s: the kind changed to %s", c.name, got.Kind)
		}
	}
}

// A TooLarge Why names this server's watch cache as a source only as one
// it may have had: --check read its /metrics and found none now (fresh
// user try 44 F2). The same text with a cache, or unchecked, keeps it.
func TestTooLargeWhyWithoutTheServersWatchCache(t *testing.T) {
	const msg = "Timeout: Too large resource version: 300, current: 290"
	d := FromText(msg)
	if !strings.Contains(d.Why, ownCacheCatchingUp) || !strings.Contains(d.Why, "a watch cache catching up or another API server") {
		t.Fatalf("the unchecked Why no longer names the server's watch cache: %q", d.Why)
	}
	got := Reconcile(d, CompareNow(d, "300", Now{ResourceVersion: "290", NoWatchCache: true}, nil))
	for _, bad := range []string{ownCacheCatchingUp, "a watch cache catching up or"} {
		if strings.Contains(got.Why, bad) {
			t.Errorf("checked without a watch cache, the Why still says %q: %q", bad, got.Why)
		}
	}
	if !strings.Contains(got.Why, "checked now, it has none") || !strings.Contains(got.Why, "another API server of the same cluster is the likely source") {
		t.Errorf("the Why does not say what the check found: %q", got.Why)
	}
	if kept := Reconcile(d, CompareNow(d, "300", Now{ResourceVersion: "290", WatchCache: true}, nil)); kept.Why != d.Why {
		t.Errorf("with a watch cache the Why changed: %q", kept.Why)
	}
}

// The class of adversary try 51 F16 and F10: a verdict never contradicts
// what was measured. A text whose words name no answerer (a -v=6 "410
// Gone" line, Python's "(410) Reason: Gone", kubectl's "410 Expired", the
// numberless "too old resource version"), checked with the same request
// refused now by the watch cache's window, is confirmed: not lowered, no
// "says otherwise", one note that the refusal is the text's. A text's
// address that differs from the kubeconfig's (localhost for 127.0.0.1,
// the in-cluster Service 10.96.0.1:443) is said, never weighed. The
// answer is v1.37.2's, recorded by the adversary (watch cache on).
func TestReconcileNeverContradictsTheMeasurement(t *testing.T) {
	same := &Tried{Request: "a watch from RV 5", Refused: true, Answer: "ERROR event 410 Expired: too old resource version: 5 (520)"}
	storage := &Tried{Request: "a watch from RV 5", Refused: true, Answer: "410 Expired: The resourceVersion for the provided watch is too old."}
	for _, c := range []struct {
		name, text string
		tried      *Tried
		textServer string
		lowers     bool
	}{
		{"a -v=6 line's 410 Gone", "I1130 round_trippers.go:553] GET https://127.0.0.1:24971/api/v1/namespaces/demo/configmaps?allowWatchBookmarks=true&resourceVersion=5&watch=true 410 Gone in 3 milliseconds", same, "", false},
		{"Python's (410) Reason: Gone", "kubernetes.client.exceptions.ApiException: (410) Reason: Gone", same, "", false},
		{"kubectl's 410 Expired", "Error from server (Expired): 410 Expired", same, "", false},
		{"the numberless words", "too old resource version", same, "", false},
		{"the window's words, from localhost", "too old resource version: 5 (100)", same, "localhost:24971", false},
		{"a bare 410 from the in-cluster Service", "410 Gone", same, "10.96.0.1:443", false},
		// Measured against the text: still said.
		{"the numberless words, storage refuses now", "too old resource version", storage, "", true},
		{"the window's words, storage refuses now, another address", "too old resource version: 5 (100)", storage, "10.96.0.1:443", true},
	} {
		d := FromTextContext(c.text, Context{Operation: OpWatch, RequestedResourceVersion: "5"})
		if d.Class != ClassExpired {
			t.Fatalf("%s: classified %s/%s", c.name, d.Class, d.Kind)
		}
		ck := Check{Resource: "configmaps", RequestFrom: RequestFromURL, RequestedResourceVersion: "5", CurrentResourceVersion: "680", Behind: "675", Tried: c.tried}
		if c.textServer != "" {
			ck.TextServer, ck.CheckedServer = c.textServer, "127.0.0.1:24971"
		}
		got := Reconcile(d, ck)
		notes := strings.Join(got.Notes, "\n")
		lowered := got.Confidence == ConfidenceLow && d.Confidence != ConfidenceLow || strings.HasPrefix(got.Summary, "the text says: ") || strings.Contains(notes, "another setup")
		if lowered != c.lowers {
			t.Errorf("%s (%s): confidence %s -> %s, headline %q, notes %q; want contradicted: %v", c.name, d.Kind, d.Confidence, got.Confidence, got.Summary, got.Notes, c.lowers)
		}
		if !c.lowers && (got.Confidence != d.Confidence || got.Summary != d.Summary || got.What != d.What) {
			t.Errorf("%s: changed by a measurement that agrees: %s %q", c.name, got.Confidence, got.Summary)
		}
		if !c.lowers && d.Kind != KindWatchCacheWindow && !strings.Contains(notes, "refused by this server as the text says") {
			t.Errorf("%s: the confirmation is not said: %q", c.name, got.Notes)
		}
		if c.textServer != "" && (strings.Count(notes, c.textServer) != 1 || !strings.Contains(notes, "another address")) {
			t.Errorf("%s: the other address is not said once: %q", c.name, got.Notes)
		}
	}
}

// A request tried whose connection broke got no answer: the verdict says
// so in the words of the cut (apiclient.BodyCutError's, as the adversary
// recorded them), never that it "fails" (adversary try 51 F1), and
// nothing weighs against the text.
func TestABrokenTryGotNoAnswer(t *testing.T) {
	d := FromText("too old resource version: 5 (100)")
	cut := &Tried{Request: "a watch from RV 5", Broken: true, Answer: "the watch stream of GET /api/v1/namespaces/default/configmaps?resourceVersion=5&watch=1 broke off after 74 bytes: the connection closed in the middle of an event"}
	c := CompareNow(d, "5", Now{ResourceVersion: "100"}, cut)
	c.RequestFrom = RequestFromURL
	if !strings.HasSuffix(c.Verdict, "; tried: a watch from RV 5 got no answer: "+cut.Answer) || strings.Contains(c.Verdict, "fails") {
		t.Errorf("verdict %q", c.Verdict)
	}
	if got := Reconcile(d, c); got.Confidence != d.Confidence || len(got.Notes) != len(d.Notes) {
		t.Errorf("a broken try weighed against the text: %s %q", got.Confidence, got.Notes)
	}
}
