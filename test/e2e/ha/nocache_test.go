//go:build e2e

package ha

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Issue 25 item 12: a server with no watch cache for the resource
// (--watch-cache-sizes=configmaps#0 on server 2 of 2) reads storage for
// its rv=0 list, so the RV that list gives is no cache's, and the verdict
// must not say its cache reached the current RV. Storage is compacted
// after the writes, so that server's probe meets storage's 410 (the sign
// that its watches go to storage); with --metrics, its /metrics has no
// series for configmaps either, and the other server's has.
func TestServersNoWatchCacheIsNotAFollowingCache(t *testing.T) {
	ctx := context.Background()
	h := framework.StartHAT(t, framework.HAOptions{Servers: 2, APIServers: []framework.APIServerOptions{{}, {WatchCacheSizes: "configmaps#0"}}})
	cs, err := h.Cluster.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	const ns = "srv-nocache"
	if err := framework.CreateNamespace(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 5; k++ {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", k)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rev, err := h.Cluster.EtcdRevision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Cluster.Compact(ctx, rev-2); err != nil {
		t.Fatal(err)
	}
	noCache := h.EndpointAddr(1)
	for _, extra := range [][]string{nil, {"--metrics"}} {
		args := append([]string{"probe", "configmaps", "-n", ns, "--servers"}, extra...)
		rep := decodeServers(t, framework.Run(t, h.Kubeconfig, 2*time.Minute, append(args, "-o", "json")...))
		human := framework.Run(t, h.Kubeconfig, 2*time.Minute, args...)
		if human.Code != 0 || len(rep.Servers) != 2 {
			t.Fatalf("%v: exit %d, %d servers: %s", args, human.Code, len(rep.Servers), human.Stderr)
		}
		var off, on *servers.Server
		for _, s := range rep.Servers {
			if s.Endpoint == noCache {
				off = s
			} else {
				on = s
			}
		}
		if off == nil || off.WatchCache != servers.CacheOff || off.Source != "storage" {
			t.Fatalf("%v: the server without a watch cache: %+v", args, off)
		}
		if len(extra) > 0 && on.WatchCache != servers.CacheOn {
			t.Errorf("%v: the server with one, by its /metrics: %+v", args, on)
		}
		every := lineOf(human.Stdout, "Every server:")
		if !strings.Contains(rep.Verdict.NoWatchCache[0], noCache) || !strings.Contains(every, noCache+" read storage directly") ||
			strings.Contains(every, "every server follows") || !strings.Contains(lineOf(human.Stdout, "No watch cache:"), noCache) {
			t.Errorf("%v: the verdict of a server without a watch cache:\n%s", args, human.Stdout)
		}
		row := lineOf(human.Stdout, "2 "+noCache)
		if f := strings.Fields(row); len(f) < 4 || f[3] != "none" || !strings.Contains(row, "no watch cache for this resource") {
			t.Errorf("%v: its row shows a CACHE RV: %q", args, row)
		}
	}
}

func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
