//go:build e2e

package proof

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestWatchTypeSlashName: TYPE/NAME works as kubectl takes it.
func TestWatchTypeSlashName(t *testing.T) {
	cs, ns := framework.Namespace(t, shared, "proof-typename")
	if err := framework.CreateConfigMaps(t.Context(), cs, ns, "a", 1, 10, 1); err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "watch", "cm/a-0", "-n", ns, "--max-events", "1", "-o", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"name":"a-0"`) || !strings.Contains(r.Stdout, "fieldSelector") && !strings.Contains(r.Stdout, `"type":"ADDED"`) {
		t.Fatalf("code %d: %s\n%s", r.Code, r.Stderr, r.Stdout)
	}
}

// TestVersionAgainstAClosedPort: the plugin's version is printed and the
// exit code says the server could not be reached.
func TestVersionAgainstAClosedPort(t *testing.T) {
	r := framework.Run(t, "", time.Minute, "version", "--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify")
	if r.Code != 4 || !strings.Contains(r.Stdout, "Plugin Version") || !strings.Contains(r.Stderr, "server version unavailable") {
		t.Fatalf("code %d: %s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestListComponentStatusesHasNoRV: a resource that is not stored in etcd
// sends no List RV; the plugin says so instead of printing empty numbers and
// claiming a quorum read, and exits 1.
func TestListComponentStatusesHasNoRV(t *testing.T) {
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "componentstatuses")
	if r.Code != 1 || !strings.Contains(r.Stdout, "the server sent no resourceVersion") || strings.Contains(r.Stdout, "quorum") ||
		strings.Contains(r.Stdout, "(no items)") || strings.Contains(r.Stdout, "Watch from here:       kubectl") {
		t.Fatalf("code %d:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestListTooLargeIsQuickWithAFix: a list not older than a future RV is
// answered by one 504 (about 3 s on v1.37.2), not by client-go's ten hidden
// retries (about 43 s), and the error carries the fix.
func TestListTooLargeIsQuickWithAFix(t *testing.T) {
	cur := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "-A", "--rv-only", "-o", "json")
	var rep struct {
		ResourceVersion string `json:"resourceVersion"`
	}
	if err := json.Unmarshal([]byte(cur.Stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, cur.Stdout)
	}
	n, _ := strconv.ParseUint(rep.ResourceVersion, 10, 64)
	future := strconv.FormatUint(n+100000, 10)
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "-A", "--rv", future, "--rv-match", "NotOlderThan")
	if r.Code != 10 || !strings.Contains(r.Stderr, "Too large resource version") || !strings.Contains(strings.ToLower(r.Stderr), "relist") && !strings.Contains(r.Stderr, "resourceVersion") {
		t.Fatalf("code %d: %s", r.Code, r.Stderr)
	}
	// One request: the server holds it about 3 s; ten retries would take 40.
	if r.Duration > 15*time.Second {
		t.Fatalf("the 504 took %s: the request was retried behind the user's back", r.Duration)
	}
	t.Logf("TooLarge list answered in %s: %s", r.Duration, r.Stderr)
}

// TestWatchBookmarksOnAPlainWatch: the bookmark that ends a plain watch's
// state (RV unset, with bookmarks) is the server's initial-events-end
// bookmark, and is noted as the end of the state with the objects before
// it, as a streaming list's is (fresh user try: it was shown with no
// note); no other line is; and the summary counts exactly the rows shown.
func TestWatchBookmarksOnAPlainWatch(t *testing.T) {
	cs, ns := framework.Namespace(t, shared, "proof-bookmarks")
	if err := framework.CreateConfigMaps(t.Context(), cs, ns, "b", 5, 10, 2); err != nil {
		t.Fatal(err)
	}
	// v1.37.2 ends the state of a plain watch from an unset RV with the
	// initial-events-end bookmark at once when bookmarks are allowed (as
	// every server from v1.35: test/e2e/matrix checkStateEndMarker).
	r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "watch", "cm", "-n", ns, "--bookmarks", "--until", "BOOKMARK", "--timeout", "30s", "-o", "json")
	var rows, bookmarks, initial int
	var sum struct {
		Events     int    `json:"events"`
		ResumeFrom string `json:"resumeFrom"`
	}
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		switch rec["record"] {
		case "event":
			rows++
			if rec["type"] == "BOOKMARK" {
				bookmarks++
			}
			if rec["initialEventsEnd"] == true || rec["initialObjects"] != nil {
				initial++
				if rec["type"] != "BOOKMARK" || rec["initialObjects"] != float64(rows-1) {
					t.Errorf("the end of the state on %s, after %d objects: %s", rec["type"], rows-1, line)
				}
			}
		case "summary":
			_ = json.Unmarshal([]byte(line), &sum)
		}
	}
	if initial != 1 || rows != sum.Events || rows < 6 || bookmarks != 1 || sum.ResumeFrom != "initial-events-end" {
		t.Fatalf("rows %d (bookmarks %d), summary events %d, initial-state marks %d:\n%s", rows, bookmarks, sum.Events, initial, r.Stdout)
	}
	t.Logf("%d rows, %d bookmarks", rows, bookmarks)
}

// TestWatchFollowCountsOnlyShownEvents: --follow asks for bookmarks to keep
// its RV fresh but does not show them, except the one that ends the
// state (v1.35 and later send it on a watch with RV unset that asks for
// bookmarks: docs/watch.md); the summary counts the rows shown.
func TestWatchFollowCountsOnlyShownEvents(t *testing.T) {
	cs, ns := framework.Namespace(t, shared, "proof-hidden")
	if err := framework.CreateConfigMaps(t.Context(), cs, ns, "h", 3, 10, 1); err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "watch", "cm", "-n", ns, "--follow", "--timeout", "5s")
	added, bookmarks := 0, 0 // rows: the TYPE column
	for _, l := range strings.Split(r.Stdout, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[1] == "ADDED" {
			added++
		} else if len(f) > 1 && f[1] == "BOOKMARK" {
			bookmarks++
		}
	}
	if !strings.Contains(r.Stdout, "Events:   4 (ADDED 3, BOOKMARK 1)") || added != 3 || bookmarks != 1 || !strings.Contains(r.Stdout, "initial state complete at RV") {
		t.Fatalf("code %d, %d ADDED and %d BOOKMARK rows, want 3 and the state's end alone, all counted:\n%s\n%s", r.Code, added, bookmarks, r.Stdout, r.Stderr)
	}
}

// -v on list shows every request with its answer, one line per page.
func TestListVerboseShowsEveryRequest(t *testing.T) {
	cs, ns := framework.Namespace(t, shared, "proof-verbose")
	if err := framework.CreateConfigMaps(t.Context(), cs, ns, "v", 5, 10, 2); err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "-n", ns, "--limit", "2", "-v")
	lines := strings.Count(r.Stderr, "-v GET /api/v1/namespaces/"+ns+"/configmaps?")
	if r.Code != 0 || lines != 3 || !strings.Contains(r.Stderr, "limit=2") || !strings.Contains(r.Stderr, "continue=") {
		t.Fatalf("want 3 request lines (5 items, limit 2), got %d; code %d:\n%s", lines, r.Code, r.Stderr)
	}
}
