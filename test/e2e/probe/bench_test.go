//go:build e2e

package probe

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

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
	client, err := probe.NewClient(shared.RESTConfig(0))
	if err != nil {
		b.Fatal(err)
	}
	cm := probe.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}
	for _, tc := range []struct {
		name string
		t    probe.Target
	}{
		{"namespace-with-writes", probe.Target{Resource: cm, Namespace: ns}},
		{"empty-namespace", probe.Target{Resource: cm, Namespace: "default"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			requests := 0
			for b.Loop() {
				budget := probe.NewBudget(64, 5)
				w := client.ProbeWindow(ctx, tc.t, probe.WindowOptions{Search: probe.SearchOptions{Budget: budget}})
				if w.Err != nil || !w.Search.Found {
					b.Fatalf("probe failed: %v", w.Err)
				}
				requests += w.Requests
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
		})
	}
}
