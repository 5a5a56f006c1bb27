//go:build e2e

package list

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/diagnose"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/pkg/serverinfo"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A continue token expires when etcd is compacted past the list's RV between
// two pages. With the watch cache off, every page is read from etcd, so the
// second page fails with a real 410; the walk restarts from page 1 once and
// reports both attempts (and stops instead with NoRestart).
// The walk runs in-process so that compaction lands exactly between pages.
func TestListContinueExpiredRestartsOnce(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true})
	cs, ns := framework.Namespace(t, c, "continue")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "cm", 30, 16, 4); err != nil {
		t.Fatal(err)
	}
	client, err := apiclient.NewClient(c.RESTConfig(0))
	if err != nil {
		t.Fatal(err)
	}
	cm := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	target := apiclient.Target{Resource: cm, Namespace: ns}

	// compactOnce compacts etcd past the first page's RV while page 1 is
	// being read: a write moves the revision, then compaction at the newest.
	bumps := 0
	compactOnce := func() func(apiclient.ItemMeta) {
		var once sync.Once
		bumps++
		prefix := fmt.Sprintf("bump%d", bumps)
		return func(apiclient.ItemMeta) {
			once.Do(func() {
				if err := framework.CreateConfigMaps(ctx, cs, ns, prefix, 1, 8, 1); err != nil {
					t.Error(err)
				}
				rev, err := c.EtcdRevision(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if err := c.Compact(ctx, rev); err != nil {
					t.Error(err)
				}
			})
		}
	}

	opts := listing.WalkOptions{PageOptions: listing.PageOptions{Limit: 10}}
	before := storageLists(t, c)
	res, err := listing.Walk(ctx, client, target, opts, compactOnce())
	after := storageLists(t, c)
	if err != nil {
		t.Fatalf("the restarted walk should succeed: %v", err)
	}
	if len(res.Attempts) != 2 {
		t.Fatalf("want 2 attempts (expired, then restarted), got %d", len(res.Attempts))
	}
	first := res.Attempts[0]
	if first.ExpiredOnPage != 2 || !strings.Contains(first.Error, "continue") {
		t.Fatalf("attempt 1 should stop at page 2 with an expired continue token, got page %d: %s", first.ExpiredOnPage, first.Error)
	}
	if got := res.Final().ItemCount; got != 31 {
		t.Fatalf("the restarted walk should see all 31 configmaps, got %d", got)
	}
	report := render.NewListReport(render.ListQuery{Target: target, Walk: opts}, res)
	if !report.Restarted || report.Attempts[0].ExpiredOnPage != 2 || report.ItemCount != 31 || report.Consistent == nil || !*report.Consistent {
		t.Fatalf("report does not show the restart: %+v", report)
	}
	// The storage requests it says storage served are the server's own
	// count, the continue request answered 410 included (fresh user try
	// 19: one short after every restart).
	served := report.WithServer(serverinfo.Read(ctx, client, "", "configmaps", nil)).ServedBy
	if served == nil || served.StorageRequests == nil || float64(*served.StorageRequests) != after-before {
		t.Fatalf("storage requests said %v; the server's apiserver_storage_list_total rose by %g", served, after-before)
	}
	var out bytes.Buffer
	p := render.NewPrinter(&out, &out, "", true)
	if err := p.List(report); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Restarted:") || !strings.Contains(out.String(), "page 2") {
		t.Fatalf("human output does not tell about the restart:\n%s", out.String())
	}

	// With NoRestart the walk stops and says why.
	opts.NoRestart = true
	res, err = listing.Walk(ctx, client, target, opts, compactOnce())
	if !listing.IsContinueExpired(err) || len(res.Attempts) != 1 {
		t.Fatalf("NoRestart: want one attempt ending in an expired continue token, got %d attempts, err %v", len(res.Attempts), err)
	}
	if st, ok := diagnose.StatusOf(err); !ok || st.Code != 410 {
		t.Fatalf("the server's answer should be a 410 Status, got %+v", st)
	}
}

// storageLists is the server's count of configmaps lists that storage
// served (apiserver_storage_list_total, every series of configmaps).
func storageLists(t *testing.T, c *framework.Cluster) float64 {
	return sumSeries(t, c, "apiserver_storage_list_total", func(l string) bool { return !strings.Contains(l, `storage="watchcache"`) })
}

// sumSeries is the sum of the configmaps series of family on the server
// now, those keep says yes to.
func sumSeries(t *testing.T, c *framework.Cluster, family string, keep func(line string) bool) float64 {
	t.Helper()
	m, err := c.TopMetrics(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, l := range strings.Split(m, "\n") {
		if strings.HasPrefix(l, family+"{") && strings.Contains(l, `resource="configmaps"`) && keep(l) {
			var v float64
			if _, err := fmt.Sscanf(l[strings.LastIndexByte(l, ' ')+1:], "%g", &v); err == nil {
				sum += v
			}
		}
	}
	return sum
}
