//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A history with known times: configmap "b" is written at a known moment,
// etcd is compacted just after it (configmaps served from etcd, no watch
// cache), so the window's oldest RV is exactly b's RV. probe --interval
// must date it by b's own timestamp, not extrapolate it from the cluster's
// write rate.
func TestProbeIntervalDepthFromObjectTimestamps(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	ctx := context.Background()
	cs, ns := framework.Namespace(t, c, "depth")
	create := func(name string) (rv int64, before, after time.Time) {
		before = time.Now()
		cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": name}}, metav1.CreateOptions{})
		after = time.Now()
		if err != nil {
			t.Fatal(err)
		}
		rv, _ = strconv.ParseInt(cm.ResourceVersion, 10, 64)
		return rv, before, after
	}
	create("a")
	time.Sleep(2 * time.Second)
	rvB, bBefore, bAfter := create("b")
	time.Sleep(4 * time.Second)
	create("c")
	// Compacting at b's RV + 1 keeps a watch from b's RV (it starts at
	// revision b+1) and expires every RV below it.
	if err := c.Compact(ctx, rvB+1); err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, c.Kubeconfig, 2*time.Minute, "probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "2s", "--qps", "50", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var s render.ProbeSeries
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatal(err)
	}
	last := s.Rounds[len(s.Rounds)-1]
	if oldest := lastOldest(t, r.Stdout); !last.Found || oldest != uint64(rvB) || last.Source != probe.SourceStorage {
		t.Fatalf("last round %+v: want the oldest RV %d from etcd", last, rvB)
	}
	// b was written at one moment between bBefore and bAfter (the create's
	// round trip); its timestamp is that moment truncated to the second.
	// The probe's bounds, one second apart, must hold the real depth: they
	// cannot miss the round trip's whole span. (They need not hold all of
	// it: when the round trip crosses a second, the timestamp tells on
	// which side the write was.)
	realMin, realMax := last.At.Sub(bAfter).Seconds(), last.At.Sub(bBefore).Seconds()
	t.Logf("depth %s %.2fs by %s (%s); real %.3f..%.3fs", s.DepthBound, s.DepthSeconds, s.DepthMethod, s.DepthEvidence, realMin, realMax)
	if s.DepthMethod != probe.DepthMethodObjectTimestamp || !s.DepthKnown || s.DepthBound != probe.DepthBoundBetween {
		t.Fatalf("depth method %q bound %q, want %q between; %s", s.DepthMethod, s.DepthBound, probe.DepthMethodObjectTimestamp, r.Stderr)
	}
	if *s.DepthAtLeast > realMax+0.001 || *s.DepthAtMost < realMin-0.001 || *s.DepthAtMost-*s.DepthAtLeast > 1.001 {
		t.Errorf("bounds %.3f..%.3fs, one second apart, miss the real %.3f..%.3fs", *s.DepthAtLeast, *s.DepthAtMost, realMin, realMax)
	}
}

// Issue 16 item 12: the oldest RV is a write to another resource (a
// secret), so no configmap is dated at it; the nearest configmap above it
// was written seconds ago while the window is older. The printed claim must
// be a bound that is true: "at least" from the newer configmap, "at most"
// from the older one, and the real depth between them.
func TestProbeIntervalDepthIsABoundWhenNoObjectIsAtTheOldestRV(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	ctx := context.Background()
	cs, ns := framework.Namespace(t, c, "depth")
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "old"}, Data: map[string]string{"k": "old"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	before := time.Now()
	sec, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "window-start"}}, metav1.CreateOptions{})
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	rvS, _ := strconv.ParseInt(sec.ResourceVersion, 10, 64)
	time.Sleep(5 * time.Second)
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}, Data: map[string]string{"k": "new"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, rvS+1); err != nil {
		t.Fatal(err)
	}
	args := []string{"probe", "configmaps", "-n", ns, "--interval", "1s", "--duration", "2s", "--qps", "50"}
	r := framework.Run(t, c.Kubeconfig, 2*time.Minute, append(args, "-o", "json")...)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var s render.ProbeSeries
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatal(err)
	}
	last := s.Rounds[len(s.Rounds)-1]
	if !last.Found || lastOldest(t, r.Stdout) != uint64(rvS) {
		t.Fatalf("last round %+v: want the oldest RV %d (the secret)", last, rvS)
	}
	realMin, realMax := last.At.Sub(after).Seconds(), last.At.Sub(before).Seconds()
	t.Logf("depth %s: %s; real %.2f..%.2fs", s.DepthBound, s.DepthEvidence, realMin, realMax)
	if s.DepthBound != probe.DepthBoundBetween || s.DepthAtLeast == nil || s.DepthAtMost == nil {
		t.Fatalf("want bounds from the configmaps on either side of the oldest RV, got %+v\n%s\n%s", s.Motion, r.Stdout, r.Stderr)
	}
	if *s.DepthAtLeast > realMin || *s.DepthAtMost < realMax {
		t.Errorf("claimed %.2f..%.2fs, the real depth is %.2f..%.2fs: a bound is false", *s.DepthAtLeast, *s.DepthAtMost, realMin, realMax)
	}
	// The newer configmap was written ~5s after the window began: a depth
	// dated by it alone would be ~5s short.
	if realMin-*s.DepthAtLeast < 3 {
		t.Errorf("the lower bound %.2fs is near the real %.2fs: the test did not build the case it means to", *s.DepthAtLeast, realMin)
	}
	h := framework.Run(t, c.Kubeconfig, 2*time.Minute, args...)
	if h.Code != 0 || !strings.Contains(h.Stdout, "Window depth:") || !strings.Contains(h.Stdout, "at least ") || !strings.Contains(h.Stdout, "and at most ") {
		t.Fatalf("exit %d; the human output must print the depth as bounds:\n%s\n%s", h.Code, h.Stdout, h.Stderr)
	}
}

// lastOldest is the oldest RV of a series' last round, from its JSON (a
// probe.Round gives its window only with whether it is known: Window).
func lastOldest(t *testing.T, stdout string) uint64 {
	t.Helper()
	var s struct {
		Rounds []struct {
			Oldest uint64 `json:"oldestResourceVersion,string"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || len(s.Rounds) == 0 {
		t.Fatalf("no rounds (%v): %s", err, stdout)
	}
	return s.Rounds[len(s.Rounds)-1].Oldest
}
