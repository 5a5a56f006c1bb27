//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Claim 1 (v1.30): a consistent read goes to storage there
// (ConsistentListFromCache off), not "served from the watch cache once it
// has caught up".
var checkConsistentReadFromStorage = claimCheck{"claim1-consistent-read", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	_, ns := framework.Namespace(t, c, "claim1")
	out := listJSON(t, c, "configmaps", "-n", ns)
	d := semantics(out)
	if strings.Contains(d, "watch cache once") || strings.Contains(d, "served from the watch cache") || !strings.Contains(d, "served by storage") {
		t.Errorf("v1.30 consistent read: %q, want served by storage, not the watch cache", d)
	}
	// v1.30's /metrics ignores name[]: not asked, the gate is the
	// version's default (off, as the server has it), and said assumed.
	srv, _ := out["server"].(map[string]any)
	gates, _ := srv["gates"].(map[string]any)
	assumed, _ := srv["assumed"].([]any)
	if srv["version"] != "v1.30.14" || gates["ConsistentListFromCache"] != false || len(assumed) == 0 {
		t.Errorf("server object: %v", srv)
	}
}}

// Claim 2 (v1.30, v1.33): a refused streaming list means the server lacks
// WatchList, not bad flags.
var checkStreamingRefused = claimCheck{"claim2-streaming-refused", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	_, ns := framework.Namespace(t, c, "claim2")
	r := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--send-initial-events", "--timeout", "10s")
	if !strings.Contains(r.Stderr, "forbidden for watch unless the WatchList feature gate is enabled") {
		t.Fatalf("want the server's 422, got exit %d: %s", r.Code, r.Stderr)
	}
	if strings.Contains(r.Stderr, "check -l, --field-selector") || !strings.Contains(r.Stderr, "does not serve streaming lists") || r.Code != 1 {
		t.Errorf("exit %d: %s: want exit 1 and 'does not serve streaming lists', not a hint at the flags", r.Code, r.Stderr)
	}
}}

// Claim 6 (v1.30): a list with a limit from a future RV goes to storage
// and its 504 comes at once: its explanation must not claim a ~3 s wait.
var checkTooLargeAtOnce = claimCheck{"claim6-toolarge-at-once", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	_, ns := framework.Namespace(t, c, "claim6")
	cur := currentRV(t, c, ns)
	future := strconv.FormatUint(cur+100000, 10)
	r := framework.Run(t, c.Kubeconfig, time.Minute, "list", "configmaps", "-n", ns, "--rv", future, "--rv-match", "NotOlderThan", "-v")
	if !strings.Contains(r.Stderr, "Too large resource version") {
		t.Fatalf("want a 504 TooLarge, got exit %d: %s", r.Code, r.Stderr)
	}
	// The request's own time (its -v line), not the run's: on a loaded
	// machine the plugin's start and discovery take seconds too.
	m := regexp.MustCompile(`(?m)^-v GET \S+configmaps\S* 504 [^\n]* in ([0-9.]+(?:ms|s|µs))`).FindStringSubmatch(r.Stderr)
	if m == nil {
		t.Fatalf("no -v line of the 504: %s", r.Stderr)
	}
	if took, err := time.ParseDuration(m[1]); err != nil || took > 2*time.Second {
		t.Errorf("the 504 took %s: v1.30 serves a list with a limit from storage, at once", m[1])
	}
	stderr := regexp.MustCompile(`(?m)^-v .*\n`).ReplaceAllString(r.Stderr, "")
	e := framework.RunInput(t, c.Kubeconfig, []byte(stderr), time.Minute, "explain-error")
	if strings.Contains(e.Stdout, "within about 3 seconds") || !strings.Contains(e.Stdout, "answered at once") {
		t.Errorf("explain-error on a 504 that came at once: %s", e.Stdout)
	}
}}

// Claim 5 (v1.30: exact lists from etcd, watches from the cache):
// explain-error --check on an Expired exact list re-runs the exact list.
var checkExactListRechecked = claimCheck{"claim5-exact-list-recheck", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	cs, ns := framework.Namespace(t, c, "claim5")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("a", nil)
	before := framework.RVNum(t, w.Modify("a").ResourceVersion) - 1
	cur := framework.RVNum(t, w.Modify("a").ResourceVersion)
	if err := c.Compact(context.Background(), int64(cur)); err != nil {
		t.Fatal(err)
	}
	rv := strconv.FormatUint(before, 10)
	l := framework.Run(t, c.Kubeconfig, time.Minute, "list", "configmaps", "-n", ns, "--rv", rv, "--rv-match", "Exact")
	if l.Code != 10 {
		t.Fatalf("exact list at %s after compaction at %d: exit %d: %s", rv, cur, l.Code, l.Stderr)
	}
	// The server's own answer, as a user would paste it.
	q := url.Values{"resourceVersion": {rv}, "resourceVersionMatch": {"Exact"}, "limit": {"1"}}
	_, err := client(t, c).Get(context.Background(), "/api/v1/namespaces/"+ns+"/configmaps", q, "application/json")
	if err == nil {
		t.Fatalf("exact list at %s after compaction at %d: answered", rv, cur)
	}
	t.Logf("plugin: %s; server: %v", strings.TrimSpace(l.Stderr), err)
	e := framework.RunInput(t, c.Kubeconfig, []byte(err.Error()+"\n"), time.Minute, "explain-error", "--check", "-n", ns, "--rv", rv, "--operation", "list-exact")
	// The human output wraps its lines: the words are compared unwrapped.
	if words := strings.Join(strings.Fields(e.Stdout), " "); strings.Contains(words, "a watch from RV") || !strings.Contains(words, "an exact list at RV "+rv+" fails") {
		t.Errorf("explain-error --check on an Expired exact list (exit %d): %s%s", e.Code, e.Stdout, e.Stderr)
	}
	// With --servers every server is asked the same question (issue 17):
	// the exact list again, not a watch, which starts here (the watch
	// cache still holds the RV) and proves nothing about the list.
	addr := strings.TrimPrefix(c.APIServers[0].URL, "https://")
	s := framework.RunInput(t, c.Kubeconfig, []byte(err.Error()+"\n"), time.Minute, "explain-error", "--check", "-n", ns, "--rv", rv, "--operation", "list-exact", "--endpoints", addr, "-o", "json")
	var out struct {
		Servers struct {
			Request string `json:"request"`
			Servers []struct {
				Watch string `json:"watch"`
				List  string `json:"list"`
				Tried *struct {
					Request string `json:"request"`
					Works   bool   `json:"works"`
				} `json:"tried"`
			} `json:"servers"`
			Findings []string `json:"findings"`
		} `json:"servers"`
	}
	if jerr := json.Unmarshal([]byte(s.Stdout), &out); jerr != nil || s.Code != 0 {
		t.Fatalf("explain-error --check --endpoints %s: exit %d, %v\n%s%s", addr, s.Code, jerr, s.Stdout, s.Stderr)
	}
	ss := out.Servers.Servers
	if out.Servers.Request != "an exact list at RV "+rv || len(ss) != 1 || ss[0].List != "expired" || ss[0].Watch != "" || ss[0].Tried == nil || ss[0].Tried.Works {
		t.Errorf("explain-error --check --endpoints on an Expired exact list: %s", s.Stdout)
	}
}}

// Claim 3 (cache off): rv=0 is served by storage; there is no cache.
var checkAnyFromStorage = claimCheck{"claim3-rv0-cache-off", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	_, ns := framework.Namespace(t, c, "claim3")
	out := listJSON(t, c, "configmaps", "-n", ns, "--rv", "0")
	d := semantics(out)
	if strings.Contains(d, "watch cache holds") || strings.Contains(d, "no etcd round trip") || !strings.Contains(d, "no watch cache") {
		t.Errorf("rv=0 with the watch cache off: %q", d)
	}
	if srv, _ := out["server"].(map[string]any); srv["watchCache"] != "no" || srv["storage"] != "unknown" {
		t.Errorf("server object: %v", srv)
	}
}}

// Claim 12 (any storage): after a PrevKv=nil ERROR the server closes the
// stream; the plugin must not say it goes on.
var checkPrevKvEndsStream = claimCheck{"claim12-prevkv-ends-stream", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	cs, ns := framework.Namespace(t, c, "claim12")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("old", nil)
	m := framework.RVNum(t, w.Modify("old").ResourceVersion)
	if err := c.Compact(context.Background(), int64(m)); err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--rv", strconv.FormatUint(m-1, 10), "--timeout", "20s")
	all := r.Stdout + r.Stderr
	if !strings.Contains(all, "PrevKv=nil") {
		t.Fatalf("want the PrevKv=nil ERROR, got exit %d: %s", r.Code, all)
	}
	if strings.Contains(all, "goes on") || !strings.Contains(all, "ends the stream") || r.Duration > 15*time.Second {
		t.Errorf("after PrevKv=nil (took %s, exit %d): %s", r.Duration, r.Code, all)
	}
}}

// Claim 4 (cache off): storage sends no bookmarks, so a quiet watch
// --follow is not a stall (the default stall timeout is 90 s).
var checkQuietIsNotStalled = claimCheck{"claim4-quiet-not-stalled", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	_, ns := framework.Namespace(t, c, "claim4")
	r := framework.Run(t, c.Kubeconfig, 3*time.Minute, "watch", "configmaps", "-n", ns, "--follow", "--timeout", "100s")
	all := r.Stdout + r.Stderr
	if strings.Contains(all, "stall") && !strings.Contains(all, "not taken for a stall") || !strings.Contains(all, "no watch cache") {
		t.Errorf("a quiet watch --follow, watch cache off (exit %d): %s", r.Code, all)
	}
}}

// Claim 4 with a short --stall-timeout and no --bookmarks: the note at
// the end gives the advice of this server, never "ask for bookmarks" of one
// whose watches storage serves (fresh user try 20: it sent the user after
// bookmarks that never come there).
var checkShortStallAdvice = claimCheck{"claim4-short-stall-advice", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	_, ns := framework.Namespace(t, c, "claim4short")
	r := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--rv", "list", "--stall-timeout", "2s")
	all := r.Stdout + r.Stderr
	if r.Code != 0 || strings.Contains(all, "ask for bookmarks") || !strings.Contains(all, "has no watch cache on this server") {
		t.Errorf("a quiet watch --stall-timeout 2s, watch cache off (exit %d): %s", r.Code, all)
	}
}}

// Claim 11 (kine): compaction is clamped to current - 1000 and storage is
// not named etcd: the advice must not say "a watch from an RV older than
// the compaction interval fails".
var checkCompactionOnKine = claimCheck{"claim11-kine-compaction", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	ctx := context.Background()
	cs, ns := framework.Namespace(t, c, "claim11")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "fill", 1050, 8, 8); err != nil {
		t.Fatal(err)
	}
	cur := currentRV(t, c, ns)
	if err := c.Compact(ctx, int64(cur)); err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--rv", "2", "--timeout", "20s")
	if !strings.Contains(r.Stdout+r.Stderr, "too old") {
		t.Fatalf("want a 410 from a watch at RV 2 after compaction, got exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	e := framework.RunInput(t, c.Kubeconfig, []byte(r.Stdout+r.Stderr), time.Minute, "explain-error")
	if strings.Contains(e.Stdout, "so a watch from an RV older than that fails") || strings.Contains(e.Stdout, "etcd has compacted") || !strings.Contains(e.Stdout, "kine") {
		t.Errorf("explain-error on kine's 410: %s", e.Stdout)
	}
}}

// currentRV is the collection's RV now (a consistent list of one item).
func currentRV(t *testing.T, c *framework.Cluster, ns string) uint64 {
	t.Helper()
	out := listJSON(t, c, "configmaps", "-n", ns, "--rv-only")
	rv, _ := out["resourceVersion"].(string)
	return framework.RVNum(t, rv)
}

// Claim 8 (v1.30, v1.33: WatchList off): a refused streaming list is a
// resource that does not stream. One resource: exit 1; --all, where every
// resource refuses: not 0 (it was), but the code of one refusal, 1, by
// the partial-failure rule of every --all run (pkg/sweep).
var checkStreamingExitCodes = claimCheck{"claim8-streaming-exit-codes", func(t *testing.T, _ framework.Cell, c *framework.Cluster) {
	_, ns := framework.Namespace(t, c, "claim8")
	one := framework.Run(t, c.Kubeconfig, time.Minute, "streaming", "configmaps", "-n", ns)
	if one.Code != 1 || !strings.Contains(one.Stdout, "refused") {
		t.Errorf("streaming configmaps, refused: exit %d, want 1: %s%s", one.Code, one.Stdout, one.Stderr)
	}
	r := framework.Run(t, c.Kubeconfig, 2*time.Minute, "streaming", "--all", "-n", ns, "--qps", "100", "--deadline", "2s", "-o", "json")
	var got struct {
		Resources []struct {
			Resource string `json:"resource"`
			Status   string `json:"status"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || len(got.Resources) < 20 {
		t.Fatalf("streaming --all: exit %d, %d rows (%v): %s", r.Code, len(got.Resources), err, r.Stderr)
	}
	for _, row := range got.Resources {
		if row.Status != "refused" {
			t.Errorf("%s: %s, want refused (WatchList is off)", row.Resource, row.Status)
		}
	}
	t.Logf("streaming --all: exit %d, %d resources in %s: %s", r.Code, len(got.Resources), r.Duration.Round(time.Millisecond), strings.TrimSpace(r.Stderr))
	// The refusal said as every answer is: its request and status (fresh
	// user try 34 F1).
	if r.Code != 1 || !strings.Contains(r.Stderr, "serves streaming lists (the first, the API server answered watch ") || !strings.Contains(r.Stderr, " with 422 Invalid: ") {
		t.Errorf("streaming --all, every resource refused: exit %d, want 1 and the refusal named: %s", r.Code, r.Stderr)
	}
}}

// The watch header's account of RV 0 (fresh user try 34 F5), on every
// cell: storage's newest state where the cell runs without a watch cache,
// the watch cache's state where it runs with one, as the cell was started
// (the ground truth); never the other.
var checkWatchFromZeroHeader = claimCheck{"watch-rv0-header", func(t *testing.T, cell framework.Cell, c *framework.Cluster) {
	_, ns := framework.Namespace(t, c, "rv0-header")
	r := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "configmaps", "-n", ns, "--rv", "0", "--timeout", "1s")
	var header string
	for _, l := range strings.Split(r.Stderr+"\n"+r.Stdout, "\n") {
		if strings.HasPrefix(l, "watching ") {
			header = l
		}
	}
	if r.Code != 0 || header == "" {
		t.Fatalf("exit %d, no header:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// Where the facts do not say (before v1.37 the plugin reads no
	// per-resource cache fact), the header gives both cases and claims
	// neither; on v1.37 it must say the one that holds.
	cacheWords, storageWords, both := "as the watch cache holds it (possibly older than", "no watch cache on this server", "storage's newest where the resource has no watch cache"
	switch {
	case strings.Contains(header, both) && cell.Version != "v1.37":
	case cell.WatchCache && (!strings.Contains(header, cacheWords) || strings.Contains(header, storageWords)),
		!cell.WatchCache && (!strings.Contains(header, storageWords) || strings.Contains(header, "watch cache holds")):
		t.Errorf("watch cache %v: the header says %q", cell.WatchCache, header)
	}
	record(cell, "watch rv=0 header", header[strings.Index(header, "(RV 0"):])
}}

// The end of a watch's initial state (fresh user try: a watch with RV unset
// and --bookmarks on v1.37.2 showed the initial-events-end bookmark with no
// note, said "no end marker", and --follow hid it), on every cell: whether
// the server ends the state of a watch from RV unset or 0 with the
// initial-events-end bookmark is read from its own bytes (a raw watch: it
// does with allowWatchBookmarks=true from v1.35, cache on or off, over etcd
// or kine; never without bookmarks, nor before v1.35), and what the plugin
// prints of the same watch must agree: the bookmark noted "initial state
// complete at RV X" and the resume point there where the server sent it,
// shown with --follow too; "no end marker" where it did not.
var checkStateEndMarker = claimCheck{"watch-state-end-marker", func(t *testing.T, cell framework.Cell, c *framework.Cluster) {
	cs, ns := framework.Namespace(t, c, "state-end")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: ns}
	w.Create("b", map[string]string{"app": "demo"})
	w.Create("a", map[string]string{"app": "demo"})
	w.Create("x", nil)
	s := newServer(t, c)
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	// What the raw watches got: with allowWatchBookmarks=true (RV unset,
	// 0, 0), and without.
	var withBookmarks []bool
	var without bool
	for _, k := range []struct {
		name      string
		query     url.Values // the raw watch's, beside labelSelector and timeoutSeconds
		args      []string   // the plugin's, beside the selector and --timeout
		bookmarks bool
	}{
		{"RV unset, --bookmarks", nil, []string{"--bookmarks"}, true},
		{"RV 0, --bookmarks", url.Values{"resourceVersion": {"0"}}, []string{"--rv", "0", "--bookmarks"}, true},
		{"RV 0, --follow", url.Values{"resourceVersion": {"0"}}, []string{"--rv", "0", "--follow"}, true},
		{"RV unset, no bookmarks", nil, nil, false},
	} {
		q := url.Values{"labelSelector": {"app=demo"}, "timeoutSeconds": {"1"}}
		for key, v := range k.query {
			q[key] = v
		}
		if k.bookmarks {
			q.Set("allowWatchBookmarks", "true")
		}
		raw := s.watch(path, q, 20*time.Second, func(e event) bool {
			return e.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true"
		})
		sent, added := false, 0
		for _, e := range raw.Events {
			switch {
			case e.Type == "ADDED":
				added++
			case e.Type == "BOOKMARK" && e.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true":
				sent = true
			}
		}
		if raw.Code != http.StatusOK || added != 2 {
			t.Fatalf("%s: the raw watch: %d, %d ADDED, want 200 and 2: %s", k.name, raw.Code, added, raw.Body)
		}
		t.Logf("%s: the server sends the initial-events-end bookmark: %v", k.name, sent)
		if k.bookmarks {
			withBookmarks = append(withBookmarks, sent)
		} else {
			without = sent
		}
		// Where the server sends the marker, the run ends at it (the two
		// objects and the marker): a watch cache sends it with its next
		// bookmarks, which a loaded machine can put past a short
		// --timeout (the oracle's seeds on cache-on cells).
		bound := []string{"--timeout", "2s"}
		if sent {
			bound = []string{"--max-events", "3", "--timeout", "30s"}
		}
		args := append(append([]string{"watch", "configmaps", "-n", ns, "-l", "app=demo", "-o", "json"}, bound...), k.args...)
		r := framework.Run(t, c.Kubeconfig, time.Minute, args...)
		if r.Code != 0 {
			t.Fatalf("%s: %v: exit %d: %s", k.name, args, r.Code, r.Stderr)
		}
		var marker *struct {
			ResourceVersion string `json:"resourceVersion"`
			InitialObjects  *int   `json:"initialObjects"`
		}
		var sum struct {
			LastResourceVersion string `json:"lastResourceVersion"`
			ResumeFrom          string `json:"resumeFrom"`
			NoResume            string `json:"noResumePoint"`
			NotShown            int    `json:"bookmarksNotShown"`
			Relists             int    `json:"relists"`
		}
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			var rec struct {
				Record           string `json:"record"`
				Type             string `json:"type"`
				ResourceVersion  string `json:"resourceVersion"`
				InitialEventsEnd bool   `json:"initialEventsEnd"`
				InitialObjects   *int   `json:"initialObjects"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("%s: a line that is no JSON: %v: %s", k.name, err, l)
			}
			switch {
			case rec.Record == "summary":
				_ = json.Unmarshal([]byte(l), &sum)
			case rec.Record == "event" && rec.InitialEventsEnd:
				if rec.Type != "BOOKMARK" || marker != nil {
					t.Errorf("%s: initialEventsEnd on %s (a second: %v): %s", k.name, rec.Type, marker != nil, l)
				}
				marker = &struct {
					ResourceVersion string `json:"resourceVersion"`
					InitialObjects  *int   `json:"initialObjects"`
				}{rec.ResourceVersion, rec.InitialObjects}
			}
		}
		switch {
		case sent && marker == nil:
			t.Errorf("%s: the server sends the initial-events-end bookmark; the plugin shows none as such (%d not shown):\n%s", k.name, sum.NotShown, r.Stdout)
		case !sent && marker != nil:
			t.Errorf("%s: the server sends no initial-events-end bookmark; the plugin shows one:\n%s", k.name, r.Stdout)
		case sent && (marker.InitialObjects == nil || *marker.InitialObjects != 2):
			t.Errorf("%s: the marker says %v objects, want 2", k.name, marker.InitialObjects)
		case sent && !strings.Contains(k.name, "--follow") && (sum.ResumeFrom != "initial-events-end" || sum.LastResourceVersion != marker.ResourceVersion):
			t.Errorf("%s: the resume point is %q from %q, want the marker's RV %s from initial-events-end", k.name, sum.LastResourceVersion, sum.ResumeFrom, marker.ResourceVersion)
		case sent && sum.Relists != 0:
			// With the marker the state is complete: a stream end is
			// resumed from it, never relisted.
			t.Errorf("%s: %d relists after the state's end marker", k.name, sum.Relists)
		case !sent && !strings.Contains(k.name, "--follow") && (sum.NoResume != "state-in-key-order" || sum.LastResourceVersion != ""):
			t.Errorf("%s: no marker came, yet the summary says resume point %q from %q (none: %q)", k.name, sum.LastResourceVersion, sum.ResumeFrom, sum.NoResume)
		}
	}
	switch {
	case withBookmarks[0] && withBookmarks[1] && withBookmarks[2] && !without:
		record(cell, "watch state end", "the initial-events-end bookmark, with `allowWatchBookmarks=true`; none without")
	case !withBookmarks[0] && !withBookmarks[1] && !withBookmarks[2] && !without:
		record(cell, "watch state end", "no initial-events-end bookmark, with `allowWatchBookmarks=true` or without")
	default:
		record(cell, "watch state end", fmt.Sprintf("the initial-events-end bookmark: RV unset %v, RV 0 %v and %v with `allowWatchBookmarks=true`; without: %v", withBookmarks[0], withBookmarks[1], withBookmarks[2], without))
	}
	// The human words of both: the note and the summary's label.
	bound := []string{"--timeout", "2s"}
	if withBookmarks[0] {
		bound = []string{"--max-events", "3", "--timeout", "30s"}
	}
	r := framework.Run(t, c.Kubeconfig, time.Minute, append([]string{"watch", "configmaps", "-n", ns, "-l", "app=demo", "--bookmarks"}, bound...)...)
	out := r.Stdout + r.Stderr
	noted := regexp.MustCompile(`(?m)^\S+\s+BOOKMARK\s+(\d+)\s+initial state complete at RV (\d+): 2 objects$`).FindStringSubmatch(r.Stdout)
	switch {
	case r.Code != 0:
		t.Errorf("watch --bookmarks: exit %d: %s", r.Code, out)
	case cell.Version >= "v1.35" && (noted == nil || noted[1] != noted[2] || !strings.Contains(r.Stdout, "last "+noted[1]+" (resume point: the initial-events-end bookmark)")):
		t.Errorf("watch --bookmarks: want the initial-events-end bookmark noted and the resume point there:\n%s", out)
	case cell.Version < "v1.35" && (noted != nil || !strings.Contains(r.Stdout, "no initial-events-end bookmark marked its end")):
		t.Errorf("watch --bookmarks, no marker sent: want no note and \"no end marker\":\n%s", out)
	}
}}
