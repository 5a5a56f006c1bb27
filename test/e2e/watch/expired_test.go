//go:build e2e

package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// expiredRecord finds the ERROR (event or HTTP status) a too-old watch got.
func expiredRecord(t *testing.T, out watchOutput) record {
	t.Helper()
	if out.Code != 10 {
		t.Fatalf("a watch that ends Expired must exit 10, got %d: %s\n%s", out.Code, out.Stderr, out.Stdout)
	}
	for _, e := range out.events() {
		if e.Type == "ERROR" {
			if e.Status == nil || e.Status.Code != 410 || e.Diagnosis == nil || e.Diagnosis.Class != "Expired" || e.Diagnosis.Fix == "" {
				t.Fatalf("want a 410 classified Expired with a fix, got %+v status %+v diagnosis %+v", e, e.Status, e.Diagnosis)
			}
			return e
		}
	}
	t.Fatalf("no ERROR record in:\n%s", out.Stdout)
	return record{}
}

func TestWatchExpiredFromCompactedEtcdWithoutWatchCache(t *testing.T) {
	t.Parallel()
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	cs, ns := newNamespace(t, c, "watch-compacted")
	w := cmWriter{t: t, cs: cs, ns: ns}
	start := w.create("old", nil).ResourceVersion
	for i := 0; i < 5; i++ {
		w.modify("old")
	}
	ctx := context.Background()
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	out := runWatch(t, c.Kubeconfig, time.Minute, "cm", "-n", ns, "--rv", start, "--timeout", "10s")
	e := expiredRecord(t, out)
	t.Logf("compacted etcd, cache off: fromHTTPStatus=%v %d %s %q kind %s", e.FromHTTPStatus, e.Status.Code, e.Status.Reason, e.Status.Message, e.Diagnosis.Kind)
	if !strings.Contains(out.Stderr, "error: the watch ended with an ERROR event from ") {
		t.Fatalf("want a one-line error naming the 410, got %q", out.Stderr)
	}
}

func TestWatchExpiredAfterWatchCacheRestart(t *testing.T) {
	t.Parallel()
	c := framework.StartT(t, framework.APIServerOptions{})
	cs, ns := newNamespace(t, c, "watch-restart")
	w := cmWriter{t: t, cs: cs, ns: ns}
	start := w.create("old", nil).ResourceVersion
	w.modify("old")
	if err := c.RestartAPIServer(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	w.cs = cs
	w.modify("old")
	out := runWatch(t, c.Kubeconfig, time.Minute, "cm", "-n", ns, "--rv", start, "--timeout", "10s")
	e := expiredRecord(t, out)
	t.Logf("restarted cache: fromHTTPStatus=%v %d %s %q kind %s oldest %s", e.FromHTTPStatus, e.Status.Code, e.Status.Reason, e.Status.Message, e.Diagnosis.Kind, e.Diagnosis.OldestResourceVersion)
	if !strings.HasPrefix(e.Status.Message, fmt.Sprintf("too old resource version: %s (", start)) || e.Diagnosis.OldestResourceVersion == "" {
		t.Fatalf("the watch cache names the oldest RV it can serve: want %q..., got %q (oldest %q)", "too old resource version: "+start, e.Status.Message, e.Diagnosis.OldestResourceVersion)
	}
	human := framework.Run(t, c.Kubeconfig, time.Minute, "watch", "cm", "-n", ns, "--rv", start, "--timeout", "10s")
	if !strings.Contains(human.Stdout, "Expired") || !strings.Contains(human.Stdout, "fix:") {
		t.Fatalf("the human form shows the class and the fix:\n%s\n%s", human.Stdout, human.Stderr)
	}
	// The plugin's own error line, pasted into explain-error, is read
	// with its numbers (fresh user try 17: "410 Gone, without the
	// message that names the window").
	lines := strings.Split(strings.TrimSpace(human.Stderr), "\n")
	last := lines[len(lines)-1]
	ex := framework.Run(t, c.Kubeconfig, time.Minute, "explain-error", "-o", "json", last)
	var d struct{ Kind, RequestedResourceVersion, OldestResourceVersion string }
	if err := json.Unmarshal([]byte(ex.Stdout), &d); ex.Code != 0 || err != nil || d.Kind != "WatchCacheWindow" || d.RequestedResourceVersion != start || d.OldestResourceVersion != e.Diagnosis.OldestResourceVersion {
		t.Fatalf("explain-error of the plugin's own line %q: exit %d, %+v (%v)\n%s", last, ex.Code, d, err, ex.Stdout)
	}
}

// A watch from an RV ahead of the server: the warning says what the server
// does with it in this mode (the watch cache holds an exact watch
// silently), and the start is no resume point, with or without --follow
// (issue 25, D18: it was "last N (resume point: the start RV)").
func TestWatchFromTheFutureWarns(t *testing.T) {
	t.Parallel()
	cs, ns := newNamespace(t, shared, "watch-future")
	w := cmWriter{t: t, cs: cs, ns: ns}
	now := rvNum(t, w.create("a", nil).ResourceVersion)
	future := fmt.Sprint(now + 100000)
	for _, mode := range [][]string{nil, {"--follow"}} {
		out := runWatch(t, shared.Kubeconfig, time.Minute, append([]string{"cm", "-n", ns, "--rv", future, "--timeout", "3s"}, mode...)...)
		if out.Code != 0 || len(out.events()) != 0 {
			t.Fatalf("watch %v: v1.37.2 holds a future watch silently: want no event and exit 0, got %s exit %d", mode, describe(out.events()), out.Code)
		}
		for _, s := range []string{"--rv " + future + " is ", "ahead of the server's current RV", "the watch cache holds this watch silently", "another cluster"} {
			if !strings.Contains(out.Stderr, s) {
				t.Fatalf("watch %v: the warning lacks %q: %s", mode, s, out.Stderr)
			}
		}
		// A status, not any number with 504 in it ("99504 ahead").
		if regexp.MustCompile(`\b504\b`).MatchString(out.Stderr) {
			t.Fatalf("watch %v: an exact watch is not a streaming list, no 504 comes: %s", mode, out.Stderr)
		}
		sum := out.summary(t)
		if sum.Ended != "timeout" || sum.Events != 0 || sum.LastResourceVersion != "" || sum.NoResumePoint != "start-rv-ahead" || sum.ResumeFrom != "none" {
			t.Fatalf("watch %v: a future start RV is no resume point: %+v", mode, sum)
		}
		human := framework.Run(t, shared.Kubeconfig, time.Minute, append([]string{"watch", "cm", "-n", ns, "--rv", future, "--timeout", "4s"}, mode...)...)
		if human.Code != 0 {
			t.Fatalf("watch %v (human): exit %d: %s", mode, human.Code, human.Stderr)
		}
		if strings.Contains(human.Stdout, "(resume point: the start RV)") || !strings.Contains(human.Stdout, "no resume point: the start RV is ahead") {
			t.Fatalf("watch %v: the summary calls a future RV a resume point:\n%s", mode, human.Stdout)
		}
	}
}

func runHuman(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, shared.Kubeconfig, time.Minute, append([]string{"watch"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("watch %v: exit %d: %s", args, r.Code, r.Stderr)
	}
	return r.Stdout
}

// A streaming list from an RV the server has not reached is answered 504
// TooLarge: where the watch cache serves it, after waiting for it (~3 s),
// as an ERROR event; where storage does, at once, as the request's own
// status. On both servers, in every mode and output, that answer is
// diagnosed as the streaming list's own: operation streaming-list,
// TooLarge at its confidence, no note that the line was pieced together
// (fresh user try 26 F1: the classifier was told "watch", which never
// gets TooLarge).
func TestWatchStreamingListFromTheFutureIsTooLarge(t *testing.T) {
	t.Parallel()
	off := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	for _, srv := range []struct {
		name    string
		cluster *framework.Cluster
		warning string // what the warning says the server does
	}{
		{"cache on", shared, "a streaming list from it is answered 504 TooLarge after the watch cache waited up to ~3 s"},
		{"cache off", off, "a streaming list from it is answered 504 TooLarge at once"},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			streamingListFromTheFuture(t, srv.cluster, srv.warning)
		})
	}
}

func streamingListFromTheFuture(t *testing.T, cl *framework.Cluster, warning string) {
	cs, ns := newNamespace(t, cl, "watch-future-sie")
	w := cmWriter{t: t, cs: cs, ns: ns}
	future := fmt.Sprint(rvNum(t, w.create("a", nil).ResourceVersion) + 100000)
	for _, c := range []struct {
		mode []string
		code int // --follow relists, as a Reflector does, and goes on
	}{{nil, 10}, {[]string{"--follow"}, 0}} {
		mode := c.mode
		args := append([]string{"cm", "-n", ns, "--send-initial-events", "--rv", future, "--timeout", "8s"}, mode...)
		out := runWatch(t, cl.Kubeconfig, time.Minute, args...)
		if out.Code != c.code {
			t.Fatalf("%v: want exit %d, got %d: %s\n%s", mode, c.code, out.Code, out.Stderr, out.Stdout)
		}
		// The warning says what the server does with a streaming list from the
		// future (issue 25, E26: it said "will hold this watch silently").
		if !strings.Contains(out.Stderr, warning) || strings.Contains(out.Stderr, "silently") {
			t.Fatalf("%v: the warning must say what a streaming list from the future gets (%q): %s", mode, warning, out.Stderr)
		}
		human := framework.Run(t, cl.Kubeconfig, time.Minute, append([]string{"watch"}, args...)...)
		if human.Code != c.code || strings.Contains(human.Stdout+human.Stderr, "Timeout: Timeout:") || !strings.Contains(human.Stdout, "504 Timeout: Too large resource version") {
			t.Fatalf("%v: exit %d; the 504 is shown once, never \"Timeout: Timeout:\":\n%s\n%s", mode, human.Code, human.Stdout, human.Stderr)
		}
		if all := human.Stdout + human.Stderr + out.Stdout + out.Stderr; strings.Contains(all, "pieced together") || strings.Contains(all, "names a watch") {
			t.Fatalf("%v: the streaming list's own 504 is no watch's answer pieced together:\n%s", mode, all)
		}
		var found bool
		for _, e := range out.events() {
			if e.Type != "ERROR" {
				continue
			}
			found = true
			t.Logf("%v future streaming list: fromHTTPStatus=%v %d %s %q", mode, e.FromHTTPStatus, e.Status.Code, e.Status.Reason, e.Status.Message)
			if d := e.Diagnosis; d == nil || d.Class != "TooLarge" || d.Kind != "ResourceVersionTooLarge" || e.Status.Code != 504 || d.Confidence != "high" || d.Operation != "streaming-list" || len(d.Notes) != 0 {
				t.Fatalf("%v: want 504 ResourceVersionTooLarge at high confidence, operation streaming-list, no note; got %+v %+v", mode, e.Status, d)
			}
		}
		if !found {
			t.Fatalf("%v: no ERROR record:\n%s", mode, out.Stdout)
		}
	}
}
