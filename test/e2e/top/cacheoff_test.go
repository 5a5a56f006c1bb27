//go:build e2e

package top

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/top"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestTopCacheOff: on a real kube-apiserver v1.37.2 with --watch-cache=false,
// apiserver_storage_list_* count every list (storage="etcd"): top reads
// them, and never names them as not exposed (in the table's note or in
// -o json's missing[]); the watch cache's column of them is n/a; and no
// callout sends the user to a watch cache the server does not have.
func TestTopCacheOff(t *testing.T) {
	c := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	ctx := context.Background()
	run, err := framework.StartLoad(ctx, c, 0, "top-cacheoff", framework.Load{Informers: 1, ListsPerSecond: 4, Objects: 60, Matching: 3, WritesPerSecond: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	time.Sleep(time.Second)
	r, res := framework.RunTopJSON(t, c.Kubeconfig, "--interval", "3s", "--check", "--max-storage-list-ratio", "1000")
	if res.Code != 0 || len(r.Servers) != 1 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	s := r.Servers[0]
	for _, m := range s.Missing {
		if strings.HasPrefix(m.Family, "apiserver_storage_list_") {
			t.Errorf("missing[] names %s (%s), whose samples top read", m.Family, m.Reason)
		}
	}
	cm := framework.TopRow(r, 1, "", "configmaps")
	if cm == nil || cm.WatchCache != top.CacheOff || !cm.ListsStorage.Known() || cm.ListsStorage.D() <= 0 || cm.StorageFetched.D() <= 0 ||
		cm.ListsCache.Known() || !strings.Contains(cm.ListsCache.Missing, `{storage="watchcache"}: the watch cache is off`) {
		t.Errorf("configmaps: %s", framework.RowSummary(cm))
	}
	if len(r.Checks) != 1 || !r.Checks[0].Checked() {
		t.Errorf("checks %+v", r.Checks)
	}
	for _, co := range r.Callouts {
		if texts := co.What + co.Meaning + co.Fix; strings.Contains(texts, "from the watch cache") {
			t.Errorf("callout %s sends the user to a watch cache this server does not have: %s", co.Kind, texts)
		}
	}
	human := framework.Run(t, c.Kubeconfig, time.Minute, "top", "--interval", "3s")
	for _, bad := range []string{"apiserver_storage_list_total: the watch cache is off", "apiserver_storage_list_fetched_objects_total: the watch cache is off", "from the watch cache", "the watch cache's lists are read from"} {
		if strings.Contains(human.Stdout, bad) {
			t.Errorf("says %q:\n%s", bad, human.Stdout)
		}
	}
	if human.Code != 0 || !strings.Contains(human.Stdout, "no watch cache for configmaps") {
		t.Errorf("exit %d, want the callouts to say the server has no watch cache for configmaps:\n%s%s", human.Code, human.Stdout, human.Stderr)
	}
	t.Logf("top:\n%s", human.Stdout)
}
