//go:build e2e

package informerlog

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// cacheFresh is how long the watch cache keeps every event before it may
// evict instead of growing (v1.37.2: bookmark period 60 s + 15 s), plus a
// margin.
const cacheFresh = 80 * time.Second

// TestInformerWatchOutlivesTheWatchCacheWindow: the informer's connection is
// cut (it is frozen meanwhile, so it does not retry), every event in the API
// server's watch cache grows older than 75 s, then 300 changes push the old
// events out of the cache's ring. Reconnected, the informer rewatches from
// its last RV X, which the cache no longer holds: 410 "too old resource
// version: X (Y)", then a relist. No restart, no compaction: the window
// itself moved.
func TestInformerWatchOutlivesTheWatchCacheWindow(t *testing.T) {
	t.Parallel()
	s := startProxied(t, framework.APIServerOptions{}, "informer-window")
	_, x := s.cutOff()
	cutAt := time.Now()
	time.Sleep(time.Until(cutAt.Add(cacheFresh)))
	var last string
	for i := 0; i < 300; i++ {
		last = s.w.Modify("b").ResourceVersion
	}
	s.reconnect()
	s.p.waitRelistPast(last, 90*time.Second)

	st := rawExpired(t, s.cs, s.ns, x["informer-v4"])
	rawX, rawY := tooOld(t, st.Message)
	// Y is the oldest RV one can still watch from: a watch from it starts.
	rawWatchStarts(t, s.cs, s.ns, rawY, func() string { return s.w.Modify("a").ResourceVersion })
	s.p.stop()

	checkLogs(t, s.p, x, "WatchCacheWindow", "window-expired-v4.log", func(f finding) {
		checkWindowLine(t, f, x["informer-v4"], rawX, rawY)
	})
}

// checkLogs checks what the outage left in both informers' records and
// logs: each rewatched from its X, then relisted; the -v=4 log holds
// findings of kind (each passed to check) and no other RV error; the
// default-verbosity log holds no 410 at all. The -v=4 log is kept for
// testdata (with -record).
func checkLogs(t *testing.T, p *informerPair, x map[string]string, kind, testdata string, check func(finding)) {
	t.Helper()
	rewatched := map[string]bool{}
	for _, in := range p.both() {
		rewatched[in.Name] = checkRewatchThenRelist(t, in, x[in.Name])
	}
	verbose := scanLog(t, p.verbose)
	if !rewatched[p.verbose.Name] {
		// client-go took its other path: no rewatch, so no 410 to log. The
		// server's own 410 for X was checked with a raw watch; the log must
		// then hold no RV error at all.
		onlyRVErrorKind(t, p.verbose, verbose, kind)
		checkQuietLog(t, p.quiet, scanLog(t, p.quiet))
		return
	}
	found := ofKind(verbose, kind)
	if len(found) == 0 {
		t.Fatalf("%s: no %s line in its log:\n%s", p.verbose.Name, kind, readFile(p.verbose.LogPath))
	}
	for _, f := range found {
		check(f)
	}
	onlyRVErrorKind(t, p.verbose, verbose, kind)
	checkQuietLog(t, p.quiet, scanLog(t, p.quiet))
	keepForTestdata(t, p.verbose.LogPath, testdata)
}

// checkWindowLine: a "too old resource version: X (Y)" line of the -v=4
// informer names its own last RV as X and the same X and Y as the server's
// answer to the harness's raw watch; explain-error read both, and the gap.
// It returns Y.
func checkWindowLine(t *testing.T, f finding, x, rawX, rawY string) string {
	t.Helper()
	lx, ly := tooOld(t, f.Text)
	if lx != x || lx != rawX || ly != rawY {
		t.Errorf("line %d: %q: want X = the informer's last RV %s (raw watch: %s) and Y = the raw watch's oldest RV %s", f.Line, f.Text, x, rawX, rawY)
	}
	checkWindowNumbers(t, f, lx, ly)
	return ly
}

// checkWindowNumbers: explain-error read X and Y off the line, and the gap.
func checkWindowNumbers(t *testing.T, f finding, x, y string) {
	t.Helper()
	d := f.Own
	if d.Class != "Expired" || d.Requested != x || d.Oldest != y {
		t.Errorf("line %d: explain-error says %s/%s requested=%q oldest=%q; want Expired/WatchCacheWindow requested=%s oldest=%s", f.Line, d.Class, d.Kind, d.Requested, d.Oldest, x, y)
	}
	if want := rvNum(t, y) - rvNum(t, x); d.Gap != "" && d.Gap != strconv.FormatUint(want, 10) {
		t.Errorf("line %d: gap %q, want %d", f.Line, d.Gap, want)
	}
}

// onlyRVErrorKind: every Expired or TooLarge finding is of the kind the
// scenario forced. Other findings (a stream's unexpected EOF, a watch that
// closed) are the informer's ordinary lines around the outage: logged only.
func onlyRVErrorKind(t *testing.T, in *framework.Informer, fs []finding, kind string) {
	t.Helper()
	for _, f := range fs {
		if (f.Own.Class == "Expired" || f.Own.Class == "TooLarge") && f.Own.Kind != kind {
			t.Errorf("%s line %d: unexpected %s/%s (want only %s): %s", in.Name, f.Line, f.Own.Class, f.Own.Kind, kind, f.Text)
		}
	}
}

// checkQuietLog: at klog's default verbosity, client-go v0.37.2 logs a
// watch that ended with 410 Expired only at -v=4 ("Watch closed"), and the
// relist that follows not at all; any line it does log is reported here
// (with its classification) and must not be an RV error left unreported.
func checkQuietLog(t *testing.T, in *framework.Informer, fs []finding) {
	t.Helper()
	for _, f := range fs {
		if f.Own.Class == "Expired" {
			t.Errorf("%s line %d: a 410 at default verbosity, which client-go v0.37.2 logs only at -v=4: %s", in.Name, f.Line, f.Text)
		}
	}
	n := 0
	for i, l := range logLines(t, in.LogPath) {
		if strings.TrimSpace(l) != "" {
			n++
			t.Logf("%s (default verbosity) line %d: %s", in.Name, i+1, l)
		}
	}
	if n == 0 {
		t.Logf("%s: its log at default verbosity is empty: the outage, the 410 and the relist left no line", in.Name)
	}
}

// checkRewatchThenRelist: after the outage, the informer's first request
// was a watch from its last RV X (that is where the X of the 410 comes
// from), and its next was a relist that was not older than X.
//
// client-go v0.37.2 (WatchList on) has two real ways back after a broken
// watch, and which one it takes depends on how the broken connection
// surfaces (seen both on this machine under load): a plain rewatch from X
// (then the 410 and a relist), or a new streaming list not older than X,
// which the server answers with the state (no 410). The second returns
// false; anything else fails the test.
func checkRewatchThenRelist(t *testing.T, in *framework.Informer, x string) bool {
	t.Helper()
	recs, err := in.Records()
	if err != nil {
		t.Fatal(err)
	}
	var after []framework.InformerRecord
	for _, r := range recs {
		if len(after) == 0 && r.Type == "request" && r.ResourceVersion == x && r.SendInitialEvents && r.Verb == "watch" && r.Status == 200 {
			t.Logf("%s: no rewatch: a streaming list not older than X=%s, answered 200 (client-go's other way back; no 410 to log)", in.Name, x)
			return false
		}
		if r.Type == "request" && r.ResourceVersion == x && !r.SendInitialEvents && r.Verb == "watch" {
			after = append(after, r)
		} else if len(after) > 0 && r.Type == "request" {
			after = append(after, r)
		}
	}
	if len(after) < 2 {
		t.Fatalf("%s: want a watch from X=%s and then a relist; requests:\n%s", in.Name, x, describeRecords(recs))
	}
	relist := after[len(after)-1]
	for _, r := range after[1:] {
		if r.SendInitialEvents || r.Verb == "list" {
			relist = r
			break
		}
	}
	if !relist.SendInitialEvents && relist.Verb != "list" {
		t.Fatalf("%s: after the watch from %s, no relist request:\n%s", in.Name, x, describeRecords(recs))
	}
	t.Logf("%s: rewatch from X=%s, then relist: %s rv=%s match=%s sendInitialEvents=%v -> %d", in.Name, x, relist.Verb, relist.ResourceVersion, relist.ResourceVersionMatch, relist.SendInitialEvents, relist.Status)
	return true
}
