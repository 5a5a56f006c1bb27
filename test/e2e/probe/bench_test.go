//go:build e2e

package probe

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/probe"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// BenchmarkProbeWindow measures one resource's probe in-process against the
// shared local server (no process start, no discovery): wall time per probe
// and requests per probe, at the default --qps 5 and --max-requests 64.
//
//	WATCHRV_CLUSTER_BIN=$(bash test/cluster/build.sh) go test -tags e2e -run '^$' -bench ProbeWindow ./test/e2e/probe/
func BenchmarkProbeWindow(b *testing.B) {
	ctx := context.Background()
	cs, ns := framework.Namespace(b, shared, "probe-bench")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "x", 50, 16, 4); err != nil {
		b.Fatal(err)
	}
	client, err := apiclient.NewClient(shared.RESTConfig(0))
	if err != nil {
		b.Fatal(err)
	}
	cm := apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	for _, tc := range []struct {
		name string
		t    apiclient.Target
	}{
		{"namespace-with-writes", apiclient.Target{Resource: cm, Namespace: ns}},
		{"empty-namespace", apiclient.Target{Resource: cm, Namespace: "default"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			requests := 0
			for b.Loop() {
				budget := apiclient.NewBudget(64, 5)
				w := probe.Run(ctx, client, tc.t, probe.Options{Search: probe.SearchOptions{Budget: budget}})
				if w.Err != nil || !w.Search.Found {
					b.Fatalf("probe failed: %v", w.Err)
				}
				requests += w.Requests
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
		})
	}
}
