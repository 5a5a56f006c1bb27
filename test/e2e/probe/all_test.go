//go:build e2e

package probe

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

type allJSON struct {
	Resources []probeJSON `json:"resources"`
	Requests  int         `json:"requests"`
	Millis    float64     `json:"ms"`
	Failed    int         `json:"failed"`
}

func runAllJSON(t *testing.T, kubeconfig string, wantCode int, args ...string) allJSON {
	t.Helper()
	r := framework.Run(t, kubeconfig, 5*time.Minute, append([]string{"probe", "--all", "-o", "json"}, args...)...)
	if r.Code != wantCode {
		t.Fatalf("probe --all: exit %d, want %d: %s", r.Code, wantCode, r.Stderr)
	}
	var out allJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("probe --all -o json is not JSON: %v\n%s", err, r.Stdout)
	}
	t.Logf("PERF probe --all %v: %d resources, %d failed, %d requests in %.0f ms (process %s)", args, len(out.Resources), out.Failed, out.Requests, out.Millis, r.Duration)
	return out
}

func TestProbeAllBuiltins(t *testing.T) {
	got := runAllJSON(t, shared.Kubeconfig, 0, "--qps", "100")
	rows := map[string]probeJSON{}
	for _, r := range got.Resources {
		rows[r.Resource] = r
	}
	for _, name := range []string{"configmaps", "secrets", "pods", "namespaces", "services", "deployments.apps", "leases.coordination.k8s.io", "clusterroles.rbac.authorization.k8s.io"} {
		r, ok := rows[name]
		if !ok {
			t.Fatalf("no row for %s in %d rows", name, len(got.Resources))
		}
		if r.Error != "" || !r.Found {
			t.Fatalf("%s: %s %s", name, r.Reason, r.Error)
		}
		cur, _ := strconv.ParseUint(r.CurrentResourceVersion, 10, 64)
		old, _ := strconv.ParseUint(r.OldestResourceVersion, 10, 64)
		if old < 1 || old > cur || r.Width != cur-old || r.Requests < 2 || r.Requests > 64 {
			t.Fatalf("%s: insane row %+v", name, r)
		}
		if r.Source != "watch-cache" && r.Source != "etcd" && r.Source != "unknown" {
			t.Fatalf("%s: source %q", name, r.Source)
		}
	}
	for i := 1; i < len(got.Resources); i++ {
		a, b := got.Resources[i-1], got.Resources[i]
		if a.Found && b.Found && a.Error == "" && b.Error == "" && a.Width > b.Width {
			t.Fatalf("rows not sorted by width: %s %d before %s %d", a.Resource, a.Width, b.Resource, b.Width)
		}
	}
	for _, r := range got.Resources {
		if strings.Contains(r.Resource, "/") {
			t.Fatalf("a subresource was probed: %s", r.Resource)
		}
	}
	onlyReads(t, shared.APIServers[0].AuditLog)
}

// A user without grants: every row is there, forbidden, and the command
// exits 7 with one line, no crash.
func TestProbeAllForbiddenRows(t *testing.T) {
	got := runAllJSON(t, shared.UserKubeconfig, 7, "--qps", "100")
	if len(got.Resources) < 20 || got.Failed != len(got.Resources) {
		t.Fatalf("want every row failed, got %d of %d", got.Failed, len(got.Resources))
	}
	for _, r := range got.Resources {
		if r.Reason != "Forbidden" || !strings.Contains(r.Error, "forbidden") {
			t.Fatalf("%s: want Forbidden, got %q %q", r.Resource, r.Reason, r.Error)
		}
	}
	h := framework.Run(t, shared.UserKubeconfig, 5*time.Minute, "probe", "--all", "--qps", "100")
	lines := strings.Split(strings.TrimSpace(h.Stderr), "\n")
	if h.Code != 7 || !strings.Contains(h.Stdout, "Forbidden") || !strings.HasPrefix(lines[len(lines)-1], "error: forbidden") {
		t.Fatalf("human --all as nobody: exit %d\n%s\n%s", h.Code, h.Stdout, h.Stderr)
	}
}
