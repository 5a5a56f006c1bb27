package render

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/pkg/apiclient"
	"github.com/watchrv/kubectl-watchrv/pkg/servers"
	"github.com/watchrv/kubectl-watchrv/pkg/suggest"
)

// endpointsContext is the context of a run given --endpoints a,b.
func endpointsContext(t *testing.T, endpoints string) suggest.Context {
	t.Helper()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.StringSlice("endpoints", nil, "")
	fs.String("kubeconfig", "", "")
	if err := fs.Parse([]string{"--endpoints", endpoints, "--kubeconfig", "/k/config"}); err != nil {
		t.Fatal(err)
	}
	return suggest.From(fs, nil)
}

// Issue 25, items 2 and 3: the verdict of the per-server view suggests
// whole commands in the user's context (--endpoints, the kubeconfig, the
// namespace), never a bare "probe --servers"; and says why a server gives
// no 504 by what was measured of its watch cache: none there, storage.
func TestServersVerdictSuggestsWholeCommandsAndFollowsTheCache(t *testing.T) {
	tg := apiclient.Target{Resource: apiclient.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespaced: true}, Namespace: "demo"}
	ss := []*servers.Server{
		{Endpoint: "127.0.0.1:6443", CurrentRV: 543, CurrentKnown: true, CacheRV: 543, CacheKnown: true, LagKnown: true, WatchCache: servers.CacheUnknown},
		{Endpoint: "127.0.0.2:6443", CurrentRV: 543, CurrentKnown: true, CacheRV: 543, CacheKnown: true, LagKnown: true, WatchCache: servers.CacheUnknown},
	}
	ctx := endpointsContext(t, "127.0.0.1:6443,127.0.0.2:6443")
	r := NewServersReport("list", servers.Found{}, &servers.View{Target: tg, Servers: ss, Verdict: servers.Decide(ss, 0)}, ctx)
	var b strings.Builder
	if err := NewPrinter(&b, &b, FormatTable, true).Servers(r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	probe := "kubectl watchrv probe configmaps -n demo --endpoints 127.0.0.1:6443,127.0.0.2:6443 --kubeconfig /k/config"
	metrics := "kubectl watchrv probe configmaps -n demo --endpoints 127.0.0.1:6443,127.0.0.2:6443 --metrics --kubeconfig /k/config"
	for _, want := range []string{probe + " finds each server's oldest RV", metrics + " shows each server's watch cache",
		"no server answers 504 (the RV is at most the one its rv=0 list returned, from its watch cache or, where it has none, from storage)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "within every cache") || strings.Contains(out, "(probe ") || strings.Contains(out, ": probe ") {
		t.Errorf("a claim of a cache not measured, or a command not whole:\n%s", out)
	}

	// Measured: no watch cache on one server, one on the other.
	ss[0].WatchCache, ss[1].WatchCache = servers.CacheOff, servers.CacheOn
	got := no504Text([]string{ss[0].Endpoint, ss[1].Endpoint}, true, ss, seeCommands{})
	if want := "no 504 from 127.0.0.2:6443 (the RV is within the watch cache there); no 504 from 127.0.0.1:6443 (no watch cache there: storage serves every RV up to its current one)"; got != want {
		t.Errorf("no504Text = %q, want %q", got, want)
	}
	ss[1].WatchCache = servers.CacheOff
	if got := no504Text([]string{ss[0].Endpoint, ss[1].Endpoint}, true, ss, seeCommands{}); got != "no server answers 504 (no watch cache there: storage serves every RV up to its current one)" {
		t.Errorf("no504Text of two servers without a cache = %q", got)
	}
}
