//go:build e2e

package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

type allJSON struct {
	Resources           []probeJSON `json:"resources"`
	Requests            int         `json:"requests"`
	SharedRequests      int         `json:"sharedRequests"`
	RequestsPerResource float64     `json:"requestsPerResource"`
	RunCurrent          struct {
		Current string   `json:"currentResourceVersion"`
		From    string   `json:"from"`
		Reads   int      `json:"reads"`
		Groups  string   `json:"groups"`
		Own     []string `json:"ownCurrent"`
	} `json:"runCurrent"`
	Millis float64 `json:"ms"`
	Failed int     `json:"failed"`
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
	audit := shared.APIServers[0].AuditLog
	sentBefore := pluginRequests(t, audit)
	got := runAllJSON(t, shared.Kubeconfig, 0, "--qps", "100")
	checkAllCost(t, got, pluginRequests(t, audit)-sentBefore)
	checkAllBounds(t, got)
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
		if old < 1 || old > cur || r.Width != cur-old || r.Requests < 1 || r.Requests > 64 {
			t.Fatalf("%s: insane row %+v", name, r)
		}
		if r.Source != "watch-cache" && r.Source != "storage" && r.Source != "none" {
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

// checkAllCost: issue 23 item 2, probe --all at about one request per
// resource: one current-RV read for the run, and one watch for each
// resource whose watch cache answers (its 410 names the bound). The
// plugin's own count is the audit log's, and the figure is printed.
func checkAllCost(t *testing.T, got allJSON, audited int) {
	t.Helper()
	cacheRows, cacheRequests := 0, 0
	for _, r := range got.Resources {
		if r.Source == "watch-cache" || r.Source == "none" {
			cacheRows++
			cacheRequests += r.Requests
		}
	}
	perCache := float64(cacheRequests+got.SharedRequests) / float64(cacheRows)
	t.Logf("PERF probe --all: %d requests for %d resources (%.2f per resource, %.2f per watch-cache resource); the audit log: %d; the current RV %s read %d time(s) from %s (%s)",
		got.Requests, len(got.Resources), got.RequestsPerResource, perCache, audited, got.RunCurrent.Current, got.RunCurrent.Reads, got.RunCurrent.From, got.RunCurrent.Groups)
	if perCache > 1.2 || got.RequestsPerResource > 1.2 {
		t.Errorf("%.2f requests per watch-cache resource (%.2f per resource), want at most 1.2", perCache, got.RequestsPerResource)
	}
	if want := float64(got.Requests) / float64(len(got.Resources)); got.RequestsPerResource < want-0.01 || got.RequestsPerResource > want+0.01 {
		t.Errorf("requestsPerResource %.2f, but %d requests for %d rows", got.RequestsPerResource, got.Requests, len(got.Resources))
	}
	if audited != got.Requests {
		t.Errorf("the audit log has %d requests of the run (discovery aside), the plugin says %d", audited, got.Requests)
	}
	if got.RunCurrent.Reads != 1 || got.RunCurrent.Current == "" {
		t.Errorf("the current RV was read %d time(s) for the run (%+v), want once", got.RunCurrent.Reads, got.RunCurrent)
	}
	// The row whose list was the run's read shares the run's RV: "run",
	// never "own", which marks a group of RVs of its own (fresh user try
	// 14: apiservices was "own" on every run).
	for _, r := range got.Resources {
		if r.Resource == got.RunCurrent.From && (r.CurrentFrom != "run" || r.CurrentResourceVersion != got.RunCurrent.Current) {
			t.Errorf("the row of %s, whose list read the run's RV %s: currentFrom %q at RV %s, want run", r.Resource, got.RunCurrent.Current, r.CurrentFrom, r.CurrentResourceVersion)
		}
	}
}

// checkAllBounds: every bound --all found from one watch is the server's
// own: a raw watch from one below it gets the watch cache's 410, which
// names that same bound (the server's rule: it starts, everything below
// fails), or a later one where the window moved since (leases).
func checkAllBounds(t *testing.T, got allJSON) {
	t.Helper()
	cs, err := shared.Clientset(0)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, r := range got.Resources {
		if r.Source != "watch-cache" {
			continue
		}
		old, _ := strconv.ParseUint(r.OldestResourceVersion, 10, 64)
		first := rawWatchFirst(t, cs, collectionPath(r), strconv.FormatUint(old-1, 10))
		y, _ := strconv.ParseUint(namedOldest(t, first), 10, 64)
		switch {
		case y < old:
			t.Errorf("%s: --all says the window starts at %d, the server says %d", r.Resource, old, y)
		case y > old:
			moved++
			t.Logf("%s: the window moved from %d to %d since the probe", r.Resource, old, y)
		}
	}
	if moved > 3 {
		t.Errorf("%d windows moved during the check: more than the resources written every few seconds (leases)", moved)
	}
}

// collectionPath is the REST path of a row's collection, across all
// namespaces (probe --all's scope).
func collectionPath(r probeJSON) string {
	res, group, _ := strings.Cut(r.Resource, ".")
	if group == "" {
		return "/api/v1/" + res
	}
	return "/apis/" + group + "/" + r.GroupVersion[strings.LastIndex(r.GroupVersion, "/")+1:] + "/" + res
}

// What probe --all relies on to read the current RV once: the resources
// the kube-apiserver serves itself, a CRD's included, share one revision.
// Writes to configmaps and to a CRD interleave in one sequence, and a
// consistent list of either is at or past the newest write of both; the
// CRD's row then takes the run's current RV, and its bound is the
// server's (a raw watch from one below gets the 410 naming it).
func TestProbeAllSharesOneCurrentRV(t *testing.T) {
	ctx := context.Background()
	if _, err := shared.CreateWidgetCRD(ctx); err != nil {
		t.Fatal(err)
	}
	cs, ns := newNamespace(t, shared, "probe-all-crd")
	dyn, err := shared.Dynamic(0)
	if err != nil {
		t.Fatal(err)
	}
	widgets := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace(ns)
	var rvs []uint64
	for i := 0; i < 3; i++ {
		cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, atou(cm.ResourceVersion))
		if err := shared.CreateWidget(ctx, ns, fmt.Sprintf("w%d", i)); err != nil {
			t.Fatal(err)
		}
		w, err := widgets.Get(ctx, fmt.Sprintf("w%d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, atou(w.GetResourceVersion()))
	}
	for i := 1; i < len(rvs); i++ {
		if rvs[i] <= rvs[i-1] {
			t.Fatalf("configmap and widget writes, interleaved, got RVs %v: not one increasing revision", rvs)
		}
	}
	wl, err := widgets.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	last := rvs[len(rvs)-1]
	if atou(wl.GetResourceVersion()) < last || atou(cl.ResourceVersion) < last {
		t.Fatalf("consistent lists of widgets (RV %s) and configmaps (RV %s) after the last write at %d", wl.GetResourceVersion(), cl.ResourceVersion, last)
	}
	got := runAllJSON(t, shared.Kubeconfig, 0, "--qps", "100", "-n", ns)
	if got.RunCurrent.Groups != "apiservices" || slices.Contains(got.RunCurrent.Own, "example.com/v1") {
		t.Errorf("the CRD's group is not taken as the cluster's own: %+v", got.RunCurrent)
	}
	for _, r := range got.Resources {
		if r.Resource != "widgets.example.com" {
			continue
		}
		cur, old := atou(r.CurrentResourceVersion), atou(r.OldestResourceVersion)
		if !r.Found || cur < last || r.Requests != 1 || r.CurrentFrom != "run" && r.CurrentFrom != "own" {
			t.Fatalf("the widgets row: %+v (the last write at %d)", r, last)
		}
		if r.Source == "watch-cache" {
			first := rawWatchFirst(t, cs, "/apis/example.com/v1/namespaces/"+ns+"/widgets", strconv.FormatUint(old-1, 10))
			if y := atou(namedOldest(t, first)); y < old {
				t.Fatalf("--all puts the widgets' bound at %d, the server at %d", old, y)
			}
		}
		return
	}
	t.Fatalf("no widgets row in %d rows", len(got.Resources))
}

func atou(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}
