//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/window"
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
	if !last.Found || last.Oldest != uint64(rvB) || last.Source != window.SourceEtcd {
		t.Fatalf("last round %+v: want the oldest RV %d from etcd", last, rvB)
	}
	// b was written between bBefore and bAfter; its creationTimestamp is
	// that moment truncated to the second, so the dated depth is at most
	// 1s longer than the real one, and never shorter.
	realMin, realMax := last.At.Sub(bAfter).Seconds(), last.At.Sub(bBefore).Seconds()
	t.Logf("depth %.2fs by %s (%s); real %.2f..%.2fs", s.DepthSeconds, s.DepthMethod, s.DepthEvidence, realMin, realMax)
	if s.DepthMethod != window.DepthMethodObjectTimestamp || !s.DepthKnown {
		t.Fatalf("depth method %q, want %q; %s", s.DepthMethod, window.DepthMethodObjectTimestamp, r.Stderr)
	}
	if s.DepthSeconds < realMin-0.001 || s.DepthSeconds > realMax+1.0 {
		t.Errorf("depth %.3fs outside the real %.3f..%.3fs (+1s timestamp resolution)", s.DepthSeconds, realMin, realMax)
	}
}
