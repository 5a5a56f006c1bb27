//go:build e2e

package list

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Issue 16 item 29: an exact list at a compacted RV (etcd's real 410,
// watch cache off) printed "error: The resourceVersion for the provided
// list is too old.: Do not list ...": a stray ".:" and no Expired label.
func TestListExactAtACompactedRVSaysExpiredOnce(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	ns, a, _ := twoThenCompacted(t, c, "exact-expired")
	r := framework.Run(t, c.Kubeconfig, time.Minute, "list", "cm", "-n", ns, "--rv", a.ResourceVersion, "--rv-match", "Exact")
	// The line names the request and status, then the server's words once
	// (fresh user try 33 F4).
	const want = " answered list configmaps with 410 Expired: The resourceVersion for the provided list is too old: Do not list at an old exact RV"
	if r.Code != 10 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stderr, "too old.:") {
		t.Fatalf("exit %d, want 10 and %q:\n%s", r.Code, want, r.Stderr)
	}
	// Fresh user try 46 F4: without a watch cache, storage answers rv=0
	// with the newest state: not "possibly stale" beside the Served by
	// line that says so.
	any := framework.Run(t, c.Kubeconfig, time.Minute, "list", "cm", "-n", ns, "--rv", "0")
	if any.Code != 0 || strings.Contains(any.Stdout, "stale") || !strings.Contains(any.Stdout, "here the newest: with no watch cache for it, storage answers") {
		t.Errorf("list --rv 0 without a watch cache: exit %d:\n%s", any.Code, any.Stdout)
	}
}

// Fresh user try 46 F1: with the watch cache on (v1.37.2, where
// ListFromCacheSnapshot is on), an exact list at an RV storage compacted
// is still answered from the cache's snapshot, and the read semantics
// said "fails with 410 Expired once N is compacted" above its items. The
// rule said now, "fails with 410 Expired once N is compacted in storage
// and no watch cache snapshot holds it", is held to each answer on a real
// server after a compaction: an RV the cache has a snapshot of (a
// configmap's, created after the cache started) is answered, by the watch
// cache (storage's list counter does not move); an older one (RV 2, which
// the cache may or may not hold, as it started) is answered only by the
// watch cache, else 410 Expired.
func TestListExactAtACompactedRVFromTheCachesSnapshot(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{})
	ns, a, rev := twoThenCompacted(t, c, "exact-snapshot")
	for _, at := range []string{a.ResourceVersion, "2"} {
		before := storageLists(t, c)
		r := framework.Run(t, c.Kubeconfig, time.Minute, "list", "cm", "-n", ns, "--rv", at, "--rv-match", "Exact")
		fromStorage := storageLists(t, c) - before
		t.Logf("exact list at %s, compacted at %d: exit %d, %g storage list(s)", at, rev, r.Code, fromStorage)
		if !strings.Contains(r.Stdout+r.Stderr, "fails with 410 Expired once "+at+" is compacted in storage and no watch cache snapshot holds it") && r.Code == 0 {
			t.Errorf("exact list at %s: not the snapshot rule:\n%s", at, r.Stdout)
		}
		switch {
		case at == a.ResourceVersion && (r.Code != 0 || !strings.Contains(r.Stdout, "Items:                 1")):
			t.Errorf("exact list at %s, which the cache's snapshots hold: exit %d, want 0 and one item:\n%s%s", at, r.Code, r.Stdout, r.Stderr)
		case r.Code == 0 && fromStorage > 0:
			t.Errorf("exact list at %s, compacted: answered, and storage's list counter rose by %g: the rule says only a snapshot answers it", at, fromStorage)
		case r.Code != 0 && (r.Code != 10 || !strings.Contains(r.Stderr, "410 Expired")):
			t.Errorf("exact list at %s: exit %d, want 0 (a snapshot) or 10 (410 Expired):\n%s", at, r.Code, r.Stderr)
		}
	}
}

// twoThenCompacted creates configmaps a and b in a new namespace of c and
// compacts storage at its revision then: a's RV is compacted.
func twoThenCompacted(t *testing.T, c *framework.Cluster, prefix string) (ns string, a *corev1.ConfigMap, rev int64) {
	t.Helper()
	ctx := context.Background()
	cs, ns := framework.Namespace(t, c, prefix)
	a, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if rev, err = c.EtcdRevision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	return ns, a, rev
}
