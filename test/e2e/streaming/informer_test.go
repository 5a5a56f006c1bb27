//go:build e2e

package streaming

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/watchrv/kubectl-watchrv/pkg/streaming"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// informerSyncs runs a real client-go dynamic informer (client-go v0.37.2:
// WatchListClient on by default, so its initial list is a streaming watch)
// on gvr in ns and reports whether it synced within wait.
func informerSyncs(t *testing.T, gvr schema.GroupVersionResource, ns string, wait time.Duration) bool {
	t.Helper()
	dyn, err := cluster.Dynamic(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf := dynamicinformer.NewFilteredDynamicInformer(dyn, gvr, ns, 0, cache.Indexers{}, nil).Informer()
	go inf.RunWithContext(ctx)
	waitCtx, waitCancel := context.WithTimeout(ctx, wait)
	defer waitCancel()
	return cache.WaitForCacheSync(waitCtx.Done(), inf.HasSynced)
}

// The plugin's verdict is what a real informer does: "hangs" on the
// aggregated gadgets (it never syncs, and never falls back to a list),
// "works" on the CRD.
func TestVerdictMatchesARealInformer(t *testing.T) {
	gvr, err := cluster.CreateWidgetCRD(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := check(t, cluster.Kubeconfig, "widgets.example.com", "-n", "default")
	if got := only(t, rep).Informer; got != streaming.InformerWorks {
		t.Fatalf("the plugin says the widgets informer %q, want works", got)
	}
	if !informerSyncs(t, gvr, "default", 30*time.Second) {
		t.Fatalf("the informer of %s did not sync within 30s, the plugin said it works", gvr.GroupResource())
	}

	rep, _ = check(t, cluster.Kubeconfig, gadgets, "-n", framework.ExtensionNamespace, "--deadline", "3s")
	if got := only(t, rep).Informer; got != streaming.InformerHangs {
		t.Fatalf("the plugin says the gadgets informer %q, want hangs", got)
	}
	before := len(agg.Extension.Requests())
	// 12s: longer than the plugin's deadline, and past client-go's first
	// 10s "initial-events-end bookmark not received" warning.
	if informerSyncs(t, framework.GadgetsGVR, framework.ExtensionNamespace, 12*time.Second) {
		t.Fatalf("the informer of %s synced without the initial-events-end bookmark: did it fall back to a list?", framework.GadgetsGVR.GroupResource())
	}
	var streamingWatches, lists int
	for _, q := range requestsSince(before) {
		switch {
		case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
			streamingWatches++
		case q.Get("watch") == "":
			lists++
		}
	}
	if streamingWatches == 0 || lists != 0 {
		t.Errorf("the informer sent %d streaming watches and %d lists, want >= 1 and 0 (no fallback)", streamingWatches, lists)
	}
}
