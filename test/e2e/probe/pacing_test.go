//go:build e2e

package probe

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Fresh user try 19 #3: the times printed for requests included the
// plugin's own --qps pacing (streaming --all at --qps 5: TO BOOKMARK 200 ms
// for collections that stream in 2 ms, OBJ/S 20 to 40 times too low; probe
// --all's TIME likewise). Every command that prints a time for its
// requests is run twice on the same server, paced and unpaced: the paced
// run's times may not carry the pacing (each row after the burst waited
// 1/qps for its first request alone).
func TestPrintedTimesLeaveOutTheQPSPacing(t *testing.T) {
	_, ns := newNamespace(t, shared, "pacing")
	u, err := url.Parse(shared.APIServers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	type rowTimes func(stdout string) []float64
	probeRows := func(stdout string) []float64 {
		var all allJSON
		mustJSON(t, stdout, &all)
		var ms []float64
		for _, r := range all.Resources {
			ms = append(ms, r.Millis)
		}
		return ms
	}
	streamRows := func(stdout string) []float64 {
		var all struct {
			Resources []struct {
				BookmarkMs   float64 `json:"bookmarkMs"`
				FirstEventMs float64 `json:"firstEventMs"`
				StreamMs     float64 `json:"streamMs"`
			} `json:"resources"`
		}
		mustJSON(t, stdout, &all)
		var ms []float64
		for _, r := range all.Resources {
			ms = append(ms, max(r.BookmarkMs, r.FirstEventMs, r.StreamMs))
		}
		return ms
	}
	// A server's time (the view's own "ms" is the run's wall time,
	// pacing included: TestEveryRunSummarySaysTheRunsWallTime).
	serverRows := func(stdout string) []float64 {
		var view struct {
			Servers []struct {
				Millis float64 `json:"ms"`
			} `json:"servers"`
		}
		mustJSON(t, stdout, &view)
		var ms []float64
		for _, s := range view.Servers {
			ms = append(ms, s.Millis)
		}
		return ms
	}
	oneRow := func(stdout string) []float64 {
		var one probeJSON
		mustJSON(t, stdout, &one)
		return []float64{one.Millis}
	}
	for _, tc := range []struct {
		name string
		args []string
		rows rowTimes
		// qps paces the slow run; each row's first request waits 1/qps
		// for its token there (after the burst).
		qps  string
		wait time.Duration
	}{
		{"probe --all", []string{"probe", "--all", "-n", ns, "--probe-wait", "50ms"}, probeRows, "5", 200 * time.Millisecond},
		{"streaming --all", []string{"streaming", "--all", "-n", ns}, streamRows, "10", 100 * time.Millisecond},
		{"probe --endpoints", []string{"probe", "configmaps", "-n", ns, "--probe-wait", "50ms", "--endpoints", u.Host}, serverRows, "1", time.Second},
		{"probe", []string{"probe", "configmaps", "-n", ns, "--probe-wait", "50ms", "--verify"}, oneRow, "1", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(qps string) []float64 {
				r := framework.Run(t, shared.Kubeconfig, 5*time.Minute, append(tc.args, "--qps", qps, "-o", "json")...)
				if r.Code != 0 {
					t.Fatalf("%v --qps %s: exit %d: %s", tc.args, qps, r.Code, r.Stderr)
				}
				return tc.rows(r.Stdout)
			}
			fast, slow := run("1000"), run(tc.qps)
			if len(fast) != len(slow) || len(slow) == 0 {
				t.Fatalf("%d rows unpaced, %d paced", len(fast), len(slow))
			}
			var sumFast, sumSlow float64
			for i := range slow {
				sumFast += fast[i]
				sumSlow += slow[i]
			}
			// Half a token's wait per row is far above the noise of two
			// runs, and far below what the pacing adds.
			allowed := sumFast + float64(len(slow))*float64(tc.wait.Milliseconds())/2
			t.Logf("%s: %d rows, %.0f ms unpaced, %.0f ms at --qps %s (at most %.0f)", tc.name, len(slow), sumFast, sumSlow, tc.qps, allowed)
			if sumSlow > allowed {
				t.Fatalf("%s at --qps %s: the rows' times add up to %.0f ms, %.0f ms unpaced: they include the pacing", tc.name, tc.qps, sumSlow, sumFast)
			}
		})
	}
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}
