//go:build e2e

package list

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// pacedNamespace is a namespace of 300 configmaps: a --limit 1 walk of it
// sends 300 page requests, past the REST client's burst of 100, so that
// it takes seconds (50 requests a second after the burst).
func pacedNamespace(t *testing.T, name string) string {
	t.Helper()
	cs, ns := newNamespace(t, shared, name)
	if err := framework.CreateConfigMaps(context.Background(), cs, ns, "cm", 300, 16, 8); err != nil {
		t.Fatal(err)
	}
	return ns
}

// Ctrl-C in the middle of a paged list on a real server prints only
// "interrupted", exit 130, in every output (fresh user try 22 F2: "Items:
// 223" of 305, "Page RVs: all 223 pages at RV 939", "list RV is not
// lower: ok"; in -o json "error": "context canceled" and a watchCommand).
// The signal is sent once the server has answered 30 of the 300 pages,
// and the test checks that the walk had not ended by then.
func TestAnInterruptedListPrintsOnlyInterrupted(t *testing.T) {
	ns := pacedNamespace(t, "interrupted")
	for _, out := range [][]string{nil, {"-o", "json"}, {"-o", "name"}, {"-o", "wide"}} {
		t.Run(strings.Join(out, " "), func(t *testing.T) {
			before := listRequests(t, shared)
			p := framework.StartPlugin(t, shared.Kubeconfig, append([]string{"list", "cm", "-n", ns, "--limit", "1"}, out...)...)
			for deadline := time.Now().Add(time.Minute); listRequests(t, shared) < before+30; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the server counted fewer than 30 lists of configmaps in a minute; stderr:\n%s", p.Stderr())
				}
			}
			code := p.Interrupt(30 * time.Second)
			if sent := listRequests(t, shared) - before; sent >= 300 {
				t.Fatalf("the walk read all %g pages before the signal: it proves nothing", sent)
			}
			if code != 130 || p.Stdout() != "" || p.Stderr() != "interrupted\n" {
				t.Errorf("exit %d, stdout %q, stderr %q: want 130, nothing of the pages read, only \"interrupted\"", code, p.Stdout(), p.Stderr())
			}
		})
	}
}

// The time a paged list prints is the server's and the network's, and the
// client's own rate limit (a burst of 100, then 50 requests a second) is
// said beside it, never left out unsaid (fresh user try 22 F7: a 303-page
// walk of 4.2 s said "decoded in 477.1 ms"): the two add up to the walk,
// within the run's wall time.
func TestAListSaysItsWaitForTheRateLimit(t *testing.T) {
	ns := pacedNamespace(t, "paced")
	r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "list", "cm", "-n", ns, "--limit", "1", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var got struct {
		ItemCount int64   `json:"itemCount"`
		Millis    float64 `json:"ms"`
		Pacing    *struct {
			Millis float64 `json:"ms"`
			QPS    float64 `json:"qps"`
			Burst  int     `json:"burst"`
		} `json:"pacing"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	if got.ItemCount != 300 || got.Pacing == nil || got.Pacing.QPS != 50 || got.Pacing.Burst != 100 {
		t.Fatalf("want 300 items and a pacing at 50/s after a burst of 100: %s", r.Stdout)
	}
	// 200 pages past the burst at 50 a second: the 300th request goes no
	// sooner than 4 s after the first, whatever the server's pace (under
	// load the burst's answers take longer and the bucket refills
	// meanwhile, so the pacing alone may be under 2 s: CI); the server's
	// time and the pacing add up to that walk, within the run.
	walk := time.Duration((got.Millis + got.Pacing.Millis) * float64(time.Millisecond))
	if got.Pacing.Millis <= 0 || walk < 3900*time.Millisecond || walk > r.Duration {
		t.Errorf("pacing %.0f ms, the walk %.0f ms + %.0f ms in a run of %s: want some pacing, and a walk of at least 4 s (200 pages at 50 a second), within the run", got.Pacing.Millis, got.Millis, got.Pacing.Millis, r.Duration)
	}
	h := framework.Run(t, shared.Kubeconfig, 2*time.Minute, "list", "cm", "-n", ns, "--limit", "1")
	want := "more waiting for the plugin's own rate limit (50 requests a second after a burst of 100: a larger --limit sends fewer requests)"
	if h.Code != 0 || !strings.Contains(transferLine(h.Stdout), want) {
		t.Errorf("exit %d; the Transfer line does not say the wait (%q):\n%s", h.Code, want, h.Stdout)
	}
}

// transferLine is the report's Transfer line.
func transferLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Transfer:") {
			return l
		}
	}
	return ""
}

// listRequests is the server's count of LIST requests of configmaps
// (apiserver_request_total, every series of verb LIST).
func listRequests(t *testing.T, c *framework.Cluster) float64 {
	return sumSeries(t, c, "apiserver_request_total", func(l string) bool { return strings.Contains(l, `verb="LIST"`) })
}
