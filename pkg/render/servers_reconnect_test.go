package render

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
)

// Fresh user try 19 #2: "Reconnect from RV 99999999: (--from-rv) every
// server serves it", two lines below a range that ends at the newest
// current RV 1521. An RV past what a server serves is ahead of it, on a
// server that follows storage as on one that lags; past every server, no
// server has reached it.
func TestReconnectFromAnRVAheadIsNeverServed(t *testing.T) {
	tg := apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "demo"}
	for _, tc := range []struct {
		rv        uint64
		want, not []string
	}{
		{99999999, []string{"(--from-rv) no server has reached it: 127.0.0.1:22497 answers 504 TooLarge on a relist (99,998,478 RVs ahead of the newest current RV 1521)", "a watch from it is held silently until the server gets there (kine without a watch cache ends it at once)"}, []string{"serves it", "served by"}},
		{1000, []string{"every server serves it"}, []string{"504"}},
	} {
		ss := []*servers.Server{{Endpoint: "127.0.0.1:22497", CurrentRV: 1521, CurrentKnown: true, CacheRV: 1521, CacheKnown: true, LagKnown: true, Oldest: 643, WindowKnown: true, WatchCache: servers.CacheOn}}
		r := NewServersReport("probe", servers.Found{}, &servers.View{Target: tg, Servers: ss, Verdict: servers.Decide(ss, tc.rv)}, endpointsContext(t, "127.0.0.1:22497"))
		var b strings.Builder
		if err := NewPrinter(&b, &b, FormatTable, true).Servers(r); err != nil {
			t.Fatal(err)
		}
		out := strings.Join(strings.Fields(b.String()), " ")
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("RV %d: lacks %q:\n%s", tc.rv, w, b.String())
			}
		}
		for _, n := range tc.not {
			if line := reconnectLine(out); strings.Contains(line, n) {
				t.Errorf("RV %d: the reconnect line says %q: %s", tc.rv, n, line)
			}
		}
	}
}

func reconnectLine(out string) string {
	i := strings.Index(out, "Reconnect from RV")
	if i < 0 {
		return ""
	}
	return out[i:]
}
