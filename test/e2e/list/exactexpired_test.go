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
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	cs, ns := framework.Namespace(t, c, "exact-expired")
	a, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, c.Kubeconfig, time.Minute, "list", "cm", "-n", ns, "--rv", a.ResourceVersion, "--rv-match", "Exact")
	// The line names the request and status, then the server's words once
	// (fresh user try 33 F4).
	const want = " answered list configmaps with 410 Expired: The resourceVersion for the provided list is too old: Do not list at an old exact RV"
	if r.Code != 10 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stderr, "too old.:") {
		t.Fatalf("exit %d, want 10 and %q:\n%s", r.Code, want, r.Stderr)
	}
}
