//go:build e2e

package probe

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// The compaction edge (issue 10, item 1): watch cache off, etcd compacted
// at revision R where R is a modification of the probed collection. An
// exact list at R works, so the list shortcut puts the bound at R-1, but a
// watch from R-1 needs the previous value of the change at R, which the
// compaction removed: it gets "500 etcd event received with PrevKv=nil" and
// loses that change. The oldest RV a watch starts from without loss is R,
// and --verify must prove it (it printed "Verified: NO: " before).
func TestProbeCompactedAtAModification(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{WatchCacheSizes: "configmaps#0"})
	cs, ns := newNamespace(t, c, "probe-edge")
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "edge"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patch := func(i int) string {
		t.Helper()
		p := fmt.Sprintf(`{"data":{"n":"%d"}}`, i)
		got, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, cm.Name, types.MergePatchType, []byte(p), metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got.ResourceVersion
	}
	var R string
	for i := 1; i <= 40; i++ {
		if rv := patch(i); i == 30 {
			R = rv
		}
	}
	var r int64
	fmt.Sscan(R, &r)
	if err := c.Compact(ctx, r); err != nil {
		t.Fatal(err)
	}
	for i := 41; i <= 45; i++ {
		patch(i)
	}
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	below := rawWatchFirst(t, cs, path, fmt.Sprint(r-1))
	t.Logf("watch from R-1 (%d): %.200s", r-1, below)
	if !strings.Contains(below, "PrevKv=nil") || !strings.Contains(below, fmt.Sprintf("modRevision=%d", r)) {
		t.Fatalf("the real server no longer answers a watch from R-1 with PrevKv=nil: %s", below)
	}
	recordAnswer(t, "etcd-prevkv-nil-from-R-1.json", below)

	got, _ := runProbeJSON(t, c.Kubeconfig, 0, "cm", "-n", ns, "--verify", "--qps", "100")
	if !got.Found || got.OldestResourceVersion != R || got.Source != "storage" || got.BoundBy != "lost-change" || got.LostAt != R {
		t.Fatalf("want oldest %s (R, the compaction point, a modification: the change a watch from below loses) from storage, got %+v", R, got)
	}
	if got.Verify == nil || !got.Verify.Holds {
		t.Fatalf("--verify must hold at R: %+v", got.Verify)
	}
	plain, _ := runProbeJSON(t, c.Kubeconfig, 0, "cm", "-n", ns, "--qps", "100")
	if plain.OldestResourceVersion != R {
		t.Fatalf("without --verify the bound must be R=%s too, got %s", R, plain.OldestResourceVersion)
	}
	onlyReads(t, c.APIServers[0].AuditLog)
}
