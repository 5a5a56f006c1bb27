package clients_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/clients"
)

// counts is what a client did, as the report says it.
func counts(r clients.Report) map[string]string {
	out := map[string]string{}
	for _, c := range r.Clients {
		var pats []string
		for _, p := range c.Patterns {
			pats = append(pats, p.Name)
		}
		out[c.Name()] = fmt.Sprintf("requests %d lists %d pages %d watches %d (streaming %d, exact %d, at once %d) gets %d other %d patterns %v",
			c.Requests, c.Lists.Total, c.Lists.Continue, c.Watches.Total, c.Watches.Streaming, c.Watches.Exact, c.Watches.AtOnce, c.Gets, c.Other, pats)
	}
	return out
}

func sameCounts(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s:\n got %s\nwant %s", what, k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d clients, want %d", what, len(got), len(want))
	}
}

// A client chooses its auditID (the API server takes the Audit-ID header
// as it is): with every request of the recorded log under one ID, each is
// still counted once and apart, and the collisions are counted (issue 25
// item 14: 1 watch and 3 lists under one ID showed as 2 lists and 2
// watches).
func TestAuditIDCollisions(t *testing.T) {
	base := events(t)
	want, _ := analyzeAll(t, lines(t, base), clients.Options{})
	evs := clone(base)
	for _, e := range evs {
		e["auditID"] = "chosen-by-the-client"
	}
	got, human := analyzeAll(t, lines(t, evs), clients.Options{})
	sameCounts(t, "one auditID for all", counts(got), counts(want))
	if got.Requests != want.Requests || got.AuditIDCollisions == 0 || !strings.Contains(human, "auditID of another request still open") {
		t.Errorf("requests %d (want %d), collisions %d", got.Requests, want.Requests, got.AuditIDCollisions)
	}
	if want.AuditIDCollisions != 0 {
		t.Errorf("the recorded log has %d collisions", want.AuditIDCollisions)
	}
}

// The stale-reconnect evidence compares the watch's RV only with an RV the
// server answered at before it, and only when that is newer (issue 25 item
// 9): a watch from a future RV held silently and ended with a 200, and a
// list answered 504 for one, are no answer at that RV; a list answered at
// a newer RV (its response's resourceVersion) is.
func TestStaleEvidenceRestsOnAnswers(t *testing.T) {
	base := events(t)
	var watch, list map[string]any
	for _, e := range base {
		u, _ := e["userAgent"].(string)
		if e["stage"] != "ResponseComplete" {
			continue
		}
		if e["verb"] == "watch" && strings.HasPrefix(u, "kubectl-watchrv/") && watch == nil {
			watch = e
		}
		if e["verb"] == "list" && u == "watchrv-e2e-poller" && list == nil {
			list = e
		}
	}
	at := func(e map[string]any, id, uri string, code int, received, stage string) map[string]any {
		c := clone([]map[string]any{e})[0]
		c["auditID"], c["requestURI"], c["requestReceivedTimestamp"], c["stageTimestamp"] = id, uri, received, stage
		c["responseStatus"].(map[string]any)["code"] = code
		return c
	}
	stale := func(r clients.Report) string {
		for _, c := range r.Clients {
			for _, p := range c.Patterns {
				if p.Name == clients.PatternStaleReconnect && c.User == "nobody" {
					return p.Evidence
				}
			}
		}
		return ""
	}
	future := append(clone(base),
		at(watch, "future-watch", "/api/v1/namespaces/clients-a/configmaps?resourceVersion=99999999&watch=true&timeoutSeconds=2", 200, "2026-12-01T10:44:38.000000Z", "2026-12-01T10:44:40.000000Z"),
		at(list, "future-list", "/api/v1/namespaces/clients-a/configmaps?resourceVersion=99999999", 504, "2026-12-01T10:44:38.000000Z", "2026-12-01T10:44:41.000000Z"))
	r, _ := analyzeAll(t, lines(t, future), clients.Options{})
	if ev := stale(r); ev == "" || strings.Contains(ev, "99999999") || strings.Contains(ev, "answered at") {
		t.Errorf("a future RV never answered at is evidence: %q", ev)
	}
	newer := at(list, "newer-list", "/api/v1/namespaces/clients-a/configmaps", 200, "2026-12-01T10:44:38.000000Z", "2026-12-01T10:44:39.000000Z")
	newer["responseObject"].(map[string]any)["metadata"] = map[string]any{"resourceVersion": "300"}
	r, _ = analyzeAll(t, lines(t, append(clone(base), newer)), clients.Options{})
	if ev := stale(r); !strings.Contains(ev, "asked for RV 221 when the server had already answered at RV 300") {
		t.Errorf("a list answered at RV 300 before: %q", ev)
	}
	// Answered at 300 only after the watch came: not "already".
	newer["requestReceivedTimestamp"], newer["stageTimestamp"] = "2026-12-01T10:45:20.000000Z", "2026-12-01T10:45:21.000000Z"
	r, _ = analyzeAll(t, lines(t, append(clone(base), newer)), clients.Options{})
	if ev := stale(r); strings.Contains(ev, "answered at") {
		t.Errorf("an answer after the watch: %q", ev)
	}
	// The recorded log: the newest answer before the watch was at 221
	// itself (the poller's list): equal is no evidence.
	r, _ = analyzeAll(t, lines(t, base), clients.Options{})
	if ev := stale(r); ev == "" || strings.Contains(ev, "answered at") || strings.Contains(ev, "newest") {
		t.Errorf("equal RVs as evidence: %q", ev)
	}
}

// Names that would collide ("a / b" + "c" and "a" + "b / c") are two
// clients, with a timeline row each, and print apart: a field holding the
// separator is quoted (adversary try 20 #12); with --by-source-ip the herd
// names its clients with their IP (issue 25 item 34).
func TestClientNamesAndIPs(t *testing.T) {
	base := events(t)
	evs := clone(base)
	half := map[any]int{}
	for _, e := range evs {
		if e["userAgent"] != "watchrv-e2e-poller" {
			continue
		}
		if _, ok := half[e["auditID"]]; !ok {
			half[e["auditID"]] = len(half) % 2
		}
		if half[e["auditID"]] == 0 {
			e["user"].(map[string]any)["username"], e["userAgent"] = "u / x", "y"
		} else {
			e["user"].(map[string]any)["username"], e["userAgent"] = "u", "x / y"
		}
	}
	r, _ := analyzeAll(t, lines(t, evs), clients.Options{Top: 100})
	rows := map[string]string{`"u / x" / y`: "u / x", `u / "x / y"`: "u"}
	for _, c := range r.Timeline.Clients {
		user, ok := rows[c.Client]
		if !ok {
			continue
		}
		delete(rows, c.Client)
		var lists int64
		for _, n := range c.Lists {
			lists += n
		}
		if lists != 6 || c.User != user {
			t.Errorf("timeline row %+v: %d lists, want 6 of user %q", c, lists, user)
		}
	}
	if len(rows) != 0 {
		t.Errorf("no timeline row named %v (one per client, each named apart)", rows)
	}
	// A herd of three clients told apart by their IP only.
	var herd []map[string]any
	for _, e := range base {
		if e["user"].(map[string]any)["username"] != "nobody" {
			continue
		}
		for i, ip := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"} {
			c := clone([]map[string]any{e})[0]
			c["sourceIPs"], c["auditID"] = []any{ip}, fmt.Sprint(i, c["auditID"])
			herd = append(herd, c)
		}
	}
	r, _ = analyzeAll(t, lines(t, herd), clients.Options{BySourceIP: true})
	if len(r.Herds) == 0 || !strings.Contains(r.Herds[0].Evidence, "nobody / watchrv-e2e-informer / 10.0.0.2") {
		t.Errorf("herds %+v: want the clients named with their IP", r.Herds)
	}
}

// Anyone can mint clients by rotating user agents and resources by
// requesting paths: both stay bounded, the heaviest stay apart and exact,
// the rest fold into one row that keeps their counts (issue 25 item 5).
func TestFoldTheLongTail(t *testing.T) {
	base := events(t)
	want, _ := analyzeAll(t, lines(t, base), clients.Options{})
	evs := clone(base)
	var get map[string]any
	for _, e := range base {
		if e["verb"] == "get" && e["stage"] == "ResponseComplete" {
			get = e
		}
	}
	for i := 0; i < 3000; i++ {
		c := clone([]map[string]any{get})[0]
		c["auditID"], c["userAgent"] = fmt.Sprint("minted-", i), fmt.Sprintf("rotating/%d", i)
		if i%2 == 0 {
			// One client asking for 2,000 different paths.
			c["userAgent"] = "scanner"
			c["requestURI"] = fmt.Sprintf("/api/v1/namespaces/default/thing-%d", i)
			c["objectRef"] = map[string]any{"resource": fmt.Sprintf("thing-%d", i), "namespace": "default", "apiVersion": "v1"}
		}
		evs = append(evs, c)
	}
	r, human := analyzeAll(t, lines(t, evs), clients.Options{MaxClients: 50})
	if len(r.Clients) != 50 || r.Folded == nil || r.Folded.Clients < 1500-50 {
		t.Fatalf("%d clients, folded %+v", len(r.Clients), r.Folded)
	}
	total := r.Folded.Requests
	for _, c := range r.Clients {
		total += c.Requests
	}
	if total != r.Requests || r.Requests != want.Requests+3000 {
		t.Errorf("requests %d kept + folded, report %d, want %d", total, r.Requests, want.Requests+3000)
	}
	got := counts(r)
	for k, w := range counts(want) {
		if got[k] != w {
			t.Errorf("%s: %s, want %s (the real clients stay apart and exact)", k, got[k], w)
		}
	}
	for _, c := range r.Clients {
		if c.UserAgent == "scanner" && (len(c.Resources) > 1001 || c.Resources[len(c.Resources)-1].Resource == "") {
			t.Errorf("the scanner keeps %d resources", len(c.Resources))
		}
	}
	if !strings.Contains(human, "clients folded into one") {
		t.Errorf("the human report does not say clients were folded")
	}
}

// A long log gets wider buckets (a power of two minutes), never more than
// 60, and the chart's totals are the client's counts.
func TestTimelineOfALongLog(t *testing.T) {
	base := events(t)
	var evs []map[string]any
	for h := 0; h < 5; h++ {
		for _, e := range clone(base) {
			for _, f := range []string{"requestReceivedTimestamp", "stageTimestamp"} {
				tm, _ := time.Parse(time.RFC3339Nano, e[f].(string))
				e[f] = tm.Add(time.Duration(h) * 45 * time.Minute).Format(time.RFC3339Nano)
			}
			e["auditID"] = fmt.Sprint(h, e["auditID"])
			evs = append(evs, e)
		}
	}
	r, _ := analyzeAll(t, lines(t, evs), clients.Options{Top: 100})
	if r.Timeline.BucketSeconds != 240 || len(r.Timeline.Clients[0].Lists) > 60 {
		t.Errorf("buckets of %ds, %d of them; want 240s (3h over 60 buckets: 4 minutes)", r.Timeline.BucketSeconds, len(r.Timeline.Clients[0].Lists))
	}
	for i, c := range r.Timeline.Clients {
		var lists int64
		for _, n := range c.Lists {
			lists += n
		}
		if cl := r.Clients[i]; lists != cl.Lists.Total+cl.Lists.Continue {
			t.Errorf("%s: %d lists in the chart, %d counted", c.Client, lists, cl.Lists.Total+cl.Lists.Continue)
		}
	}
}
