//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAFactIsNotDecidedByTheOrderOfSeries (adversary try 35 F2): a
// /metrics whose series come out of their label order (secrets before
// configmaps, a gate after another that sorts later) is read to each
// family's end: configmaps has a watch cache, WatchList's value is read;
// no text says "no watch cache" and --follow keeps its stall check.
func TestAFactIsNotDecidedByTheOrderOfSeries(t *testing.T) {
	metrics := "# TYPE kubernetes_feature_enabled gauge\n" +
		`kubernetes_feature_enabled{name="WatchListClient",stage="BETA"} 1` + "\n" +
		`kubernetes_feature_enabled{name="WatchList",stage="BETA"} 0` + "\n" +
		"# TYPE watch_cache_capacity gauge\n" +
		`watch_cache_capacity{group="",resource="secrets"} 100` + "\n" +
		`watch_cache_capacity{group="",resource="configmaps"} 100` + "\n"
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{
		"/metrics": {Code: 200, Type: "text/plain; version=0.0.4", Body: metrics},
	})
	r := framework.Run(t, kc, time.Minute, "--cache-dir", t.TempDir(), "list", "cm", "-o", "json")
	var got struct {
		Server struct {
			WatchCache string          `json:"watchCache"`
			Gates      map[string]bool `json:"gates"`
		} `json:"server"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || r.Code != 0 {
		t.Fatalf("list -o json: exit %d (%v):\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if got.Server.WatchCache != "yes" || got.Server.Gates["WatchList"] {
		t.Errorf("server facts: watch cache %q (want yes: its series came, after secrets'), gates %v (want WatchList off, as its series says)", got.Server.WatchCache, got.Server.Gates)
	}
	w := framework.Run(t, kc, time.Minute, "--cache-dir", t.TempDir(), "watch", "cm", "--rv", "0", "--follow", "--timeout", "2s")
	if out := w.Stdout + w.Stderr; strings.Contains(out, "no watch cache") || strings.Contains(out, "stall check (default --stall-timeout 90s) is off") {
		t.Errorf("watch --rv 0 --follow says the cache is off:\n%s", out)
	}
}
