//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A custom resource's group is not built in, so what the probe itself
// reads does not tell whose watch cache answered its 410s: the probe then
// reads the server's facts as list does (serverinfo.Read: /version and
// a few families of /metrics, or the facts cache), and names this API
// server's watch cache where its /metrics shows one for the resource
// (adversary try 22: probe widgets said "not known to be this API
// server's", where list widgets on the same cluster said "watch cache
// for widgets.example.com: on").
func TestProbeOfACustomResourceKnowsItsServer(t *testing.T) {
	ctx := context.Background()
	if _, err := shared.CreateWidgetCRD(ctx); err != nil {
		t.Fatal(err)
	}
	_, ns := newNamespace(t, shared, "probe-crd-server")
	if err := shared.CreateWidget(ctx, ns, "w1"); err != nil {
		t.Fatal(err)
	}
	h := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "widgets", "-n", ns)
	answered := lineStarting(h.Stdout, "Answered by:")
	if h.Code != 0 || !strings.Contains(answered, "the watch cache of this API server") || strings.Contains(h.Stdout, "not known to be this API server") {
		t.Fatalf("exit %d; want the watch cache of this API server named:\n%s\n%s", h.Code, h.Stdout, h.Stderr)
	}
	j := framework.Run(t, shared.Kubeconfig, time.Minute, "probe", "widgets", "-n", ns, "-o", "json")
	var rep render.ProbeReport
	if err := json.Unmarshal([]byte(j.Stdout), &rep); err != nil || j.Code != 0 {
		t.Fatalf("exit %d, %v: %s", j.Code, err, j.Stdout)
	}
	if rep.Server == nil || rep.Server.Serves != "yes" || rep.Source != "watch-cache" {
		t.Fatalf("JSON: source %q, server %+v: want this API server's watch cache, from its facts", rep.Source, rep.Server)
	}
}
