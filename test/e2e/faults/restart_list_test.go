//go:build e2e

package faults

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/listing"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// An API server restart between two pages of a list: the continue token
// stays valid (etcd still has its revision), so the walk waits the restart
// out, repeats the page, and finishes one consistent list at one RV. The walk
// runs in-process so that the restart lands exactly between pages.
func TestListSurvivesAPIServerRestartBetweenPages(t *testing.T) {
	ctx := context.Background()
	c := framework.StartT(t, framework.APIServerOptions{})
	cs, ns := framework.Namespace(t, c, "restart-list")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "cm", 40, 16, 4); err != nil {
		t.Fatal(err)
	}
	client, err := apiclient.NewClient(c.RESTConfig(0))
	if err != nil {
		t.Fatal(err)
	}
	target := apiclient.Target{
		Resource:  apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true},
		Namespace: ns,
	}
	var once sync.Once
	restarted := make(chan error, 1)
	res, err := listing.Walk(ctx, client, target, listing.WalkOptions{PageOptions: listing.PageOptions{Limit: 10}}, func(apiclient.ItemMeta) {
		once.Do(func() {
			c.StopAPIServer(0) // down before page 2 is asked for
			go func() {
				time.Sleep(time.Second)
				restarted <- c.RestartAPIServer(ctx, 0)
			}()
		})
	})
	if rerr := <-restarted; rerr != nil {
		t.Fatalf("restarting the API server: %v", rerr)
	}
	if err != nil {
		t.Fatalf("the walk should wait out the restart: %v", err)
	}
	a := res.Final()
	if len(res.Attempts) != 1 || a.ItemCount != 40 || len(a.Pages) != 4 {
		t.Fatalf("want one attempt of 40 items in 4 pages, got %d attempts, %d items, %d pages", len(res.Attempts), a.ItemCount, len(a.Pages))
	}
	if a.Retries == 0 {
		t.Fatal("page 2 should have been retried while the server was down")
	}
	for _, p := range a.Pages {
		if p.ResourceVersion != a.Pages[0].ResourceVersion {
			t.Fatalf("pages disagree across the restart: %+v", a.Pages)
		}
	}
	t.Logf("walk finished after %d page retries in %s, all pages at RV %s", a.Retries, res.Duration.Round(time.Millisecond), a.Pages[0].ResourceVersion)
}
