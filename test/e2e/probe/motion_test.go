//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Steady writes for a few seconds: --interval reports a positive rate and a
// window depth.
func TestProbeIntervalReportsEventRate(t *testing.T) {
	cs, ns := newNamespace(t, shared, "probe-interval")
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	writes := 0
	go func() {
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w-%d", i)}}
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err == nil {
				writes++
			}
		}
	}()
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "4s", "-o", "json", "--qps", "50")
	stop()
	wg.Wait()
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var got struct {
		Rounds []struct {
			Current uint64 `json:"currentResourceVersion,string"`
			Found   bool   `json:"found"`
		} `json:"rounds"`
		CurrentRate float64 `json:"currentRVPerSecond"`
		OldestRate  float64 `json:"oldestRVPerSecond"`
		Depth       float64 `json:"depthSeconds"`
		DepthKnown  bool    `json:"depthKnown"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.Stdout)
	}
	t.Logf("%d writes; %d rounds; current %.1f RV/s, oldest %.1f RV/s, depth %.1fs (known %v)", writes, len(got.Rounds), got.CurrentRate, got.OldestRate, got.Depth, got.DepthKnown)
	if len(got.Rounds) < 3 || got.CurrentRate <= 0 || !got.DepthKnown || got.Depth <= 0 {
		t.Fatalf("want >= 3 rounds, a positive rate and a depth: %s", r.Stdout)
	}
	// About 20 writes per second by this test alone.
	if got.CurrentRate < 5 {
		t.Fatalf("rate %.1f RV/s is below the test's own write rate", got.CurrentRate)
	}
	h := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "configmaps", "-n", ns, "--interval", "500ms", "--duration", "1s")
	if h.Code != 0 || !strings.Contains(h.Stdout, "Current RV advance") || !strings.Contains(h.Stdout, "Window depth") {
		t.Fatalf("human --interval: exit %d\n%s%s", h.Code, h.Stdout, h.Stderr)
	}
}

// --future on v1.37.2: the list fails 504 TooLarge after a few seconds, the
// watch is held silently.
func TestProbeFuture(t *testing.T) {
	_, ns := newNamespace(t, shared, "probe-future")
	got, _ := runProbeJSON(t, shared.Kubeconfig, 0, "configmaps", "-n", ns, "--future")
	f := got.Future
	if f == nil {
		t.Fatal("no future section")
	}
	t.Logf("future: list %d %s after %.0f ms (%s); watch %s: %s", f.ListCode, f.ListOutcome, f.ListMillis, f.ListMessage, f.WatchOutcome, f.WatchEvident)
	if f.ListCode != 504 || f.ListOutcome != "TooLarge" || !strings.Contains(f.ListMessage, "Too large resource version") || f.ListMillis < 1000 {
		t.Fatalf("want a 504 TooLarge list after a wait, got %+v", f)
	}
	if f.WatchOutcome != "ok" || !strings.Contains(f.WatchEvident, "held silently") {
		t.Fatalf("want the watch held silently, got %+v", f)
	}
}

func TestProbeBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"probe"}, 2, "expected one RESOURCE"},
		{[]string{"probe", "cm", "--all"}, 2, "give no RESOURCE"},
		{[]string{"probe", "cm", "--interval", "1s"}, 2, "--interval and --duration go together"},
		{[]string{"probe", "cm", "--interval", "1s", "--duration", "1s"}, 2, "at least two"},
		{[]string{"probe", "cm", "--max-requests", "1"}, 2, "--max-requests 1 is too small"},
		{[]string{"probe", "cm", "--qps", "0"}, 2, "--qps 0 is not a rate"},
		{[]string{"probe", "cm", "-o", "table"}, 2, "unknown output format"},
		{[]string{"probe", "cm", "--probe-wait", "1ms"}, 2, "--probe-wait"},
		{[]string{"probe", "nosuchthing"}, 9, "doesn't have a resource type"},
		{[]string{"probe", "--all", "--future"}, 2, "--future takes"},
	} {
		r := framework.Run(t, shared.Kubeconfig, time.Minute, tc.args...)
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		if r.Code != tc.code || len(lines) != 1 || !strings.Contains(r.Stderr, tc.want) || !strings.HasPrefix(r.Stderr, "error: ") {
			t.Fatalf("%v: exit %d (want %d), stderr %q (want one line with %q)", tc.args, r.Code, tc.code, r.Stderr, tc.want)
		}
	}
	// A user without grants on one resource: exit 7, one line.
	r := framework.Run(t, shared.UserKubeconfig, time.Minute, "probe", "configmaps", "-n", "default")
	if r.Code != 7 || !strings.Contains(r.Stderr, "forbidden") || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
		t.Fatalf("nobody: exit %d, stderr %q", r.Code, r.Stderr)
	}
	help := framework.Run(t, "", time.Minute, "probe", "--help")
	if help.Code != 0 || !strings.Contains(help.Stdout, "Examples:") || !strings.Contains(help.Stdout, "--max-requests") {
		t.Fatalf("--help: %d\n%s", help.Code, help.Stdout)
	}
}
