//go:build e2e

package list

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

type listJSON struct {
	Resource               string   `json:"resource"`
	Namespace              string   `json:"namespace"`
	ResourceVersion        string   `json:"resourceVersion"`
	ItemCount              int64    `json:"itemCount"`
	EstimatedTotal         *int64   `json:"estimatedTotal"`
	Pages                  int      `json:"pages"`
	PageResourceVersions   []string `json:"pageResourceVersions"`
	Consistent             bool     `json:"consistent"`
	MaxItemResourceVersion string   `json:"maxItemResourceVersion"`
	RemainingItemCount     *int64   `json:"remainingItemCount"`
	Bytes                  int64    `json:"bytes"`
	ReadSemantics          struct {
		Mode string `json:"mode"`
	} `json:"readSemantics"`
}

func runListJSON(t *testing.T, kubeconfig string, args ...string) listJSON {
	t.Helper()
	r := framework.Run(t, kubeconfig, time.Minute, append([]string{"list", "-o", "json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("list %v: exit %d: %s", args, r.Code, r.Stderr)
	}
	var out listJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("list -o json is not JSON: %v\n%s", err, r.Stdout)
	}
	return out
}

func TestListPagesShareOneRV(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "list-pages")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "cm", 1200, 16, 8); err != nil {
		t.Fatal(err)
	}
	got := runListJSON(t, shared.Kubeconfig, "configmaps", "-n", ns, "--limit", "500")
	// 1,200 test configmaps plus kube-root-ca.crt is absent (no controller
	// manager runs), so exactly 1,200 items.
	if got.ItemCount != 1200 || got.Pages != 3 {
		t.Fatalf("want 1200 items in 3 pages, got %d in %d", got.ItemCount, got.Pages)
	}
	if !got.Consistent || len(got.PageResourceVersions) != 3 {
		t.Fatalf("pages must share one RV: %v", got.PageResourceVersions)
	}
	for _, rv := range got.PageResourceVersions {
		if rv != got.ResourceVersion {
			t.Fatalf("page RV %s differs from list RV %s", rv, got.ResourceVersion)
		}
	}
	if got.RemainingItemCount == nil || *got.RemainingItemCount != 700 {
		t.Fatalf("remainingItemCount of page 1: want 700, got %v", got.RemainingItemCount)
	}
	if got.MaxItemResourceVersion == "" || rvLess(got.ResourceVersion, got.MaxItemResourceVersion) {
		t.Fatalf("newest item RV %s must not exceed list RV %s", got.MaxItemResourceVersion, got.ResourceVersion)
	}
	if got.ReadSemantics.Mode != "Consistent" {
		t.Fatalf("unset --rv is a consistent read, got %q", got.ReadSemantics.Mode)
	}

	// The RV is what a raw GET of the same collection returns: compare with
	// an Exact list at that RV through the harness's own client.
	rawRV := rawListRV(t, cs, ns, "limit", "500", "resourceVersion", got.ResourceVersion, "resourceVersionMatch", "Exact")
	if rawRV != got.ResourceVersion {
		t.Fatalf("raw Exact GET at %s returned RV %s", got.ResourceVersion, rawRV)
	}

	// --rv-only: one item of metadata, under 2 KB, same RV when nothing changed.
	only := runListJSON(t, shared.Kubeconfig, "cm", "-n", ns, "--rv-only")
	if only.Bytes >= 2048 {
		t.Fatalf("--rv-only transferred %d bytes, want < 2048", only.Bytes)
	}
	if only.EstimatedTotal == nil || *only.EstimatedTotal != 1200 {
		t.Fatalf("--rv-only should estimate 1200 objects, got %v", only.EstimatedTotal)
	}
	if rvLess(only.ResourceVersion, got.ResourceVersion) {
		t.Fatalf("a later consistent read went back in time: %s < %s", only.ResourceVersion, got.ResourceVersion)
	}
}

func TestListMatchesRawGet(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "list-raw")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "x", 3, 8, 1); err != nil {
		t.Fatal(err)
	}
	// With no writes in between, a raw consistent GET and the plugin must
	// report the same RV for this namespace... but RVs are global, so writes
	// elsewhere (leases) may move it. Compare the plugin's Exact read instead.
	rawRV := rawListRV(t, cs, ns, "limit", "1")
	got := runListJSON(t, shared.Kubeconfig, "cm", "-n", ns, "--rv", rawRV, "--rv-match", "Exact")
	if got.ResourceVersion != rawRV {
		t.Fatalf("Exact list at %s reported RV %s", rawRV, got.ResourceVersion)
	}
	if got.ItemCount != 3 || got.ReadSemantics.Mode != "Exact" {
		t.Fatalf("want 3 items, Exact; got %d, %s", got.ItemCount, got.ReadSemantics.Mode)
	}
	any := runListJSON(t, shared.Kubeconfig, "configmap", "-n", ns, "--rv", "0")
	if any.ReadSemantics.Mode != "Any" || any.ItemCount != 3 {
		t.Fatalf("--rv 0: want Any with 3 items, got %s with %d", any.ReadSemantics.Mode, any.ItemCount)
	}
}

func TestListCRDAndAllNamespaces(t *testing.T) {
	ctx := context.Background()
	if _, err := shared.CreateWidgetCRD(ctx); err != nil {
		t.Fatal(err)
	}
	_, ns1 := newNamespace(t, shared, "widgets-a")
	_, ns2 := newNamespace(t, shared, "widgets-b")
	for _, ns := range []string{ns1, ns2} {
		for _, n := range []string{"w1", "w2"} {
			if err := shared.CreateWidget(ctx, ns, n); err != nil && !strings.Contains(err.Error(), "already exists") {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{"widgets", "widget", "wg", "Widget", "widgets.example.com", "widgets.v1.example.com"} {
		got := runListJSON(t, shared.Kubeconfig, name, "-A")
		if got.Resource != "widgets.example.com" || got.ItemCount != 4 || got.Namespace != "" {
			t.Fatalf("%s -A: want 4 widgets.example.com in all namespaces, got %d %s in %q", name, got.ItemCount, got.Resource, got.Namespace)
		}
	}
	one := runListJSON(t, shared.Kubeconfig, "wg", "-n", ns1)
	if one.ItemCount != 2 || one.Namespace != ns1 {
		t.Fatalf("wg -n %s: want 2, got %d in %q", ns1, one.ItemCount, one.Namespace)
	}
}

func TestListErrors(t *testing.T) {
	cases := []struct {
		name       string
		kubeconfig string
		args       []string
		code       int
		want       string
	}{
		{"unknown resource", shared.Kubeconfig, []string{"list", "confgmaps"}, 9, `did you mean "configmaps"`},
		// A wrong group or a typo with the group: the name of the type
		// that is there (fresh user try 14).
		{"wrong group", shared.Kubeconfig, []string{"list", "deploy.nosuchgroup"}, 9, `did you mean "deployments.apps"`},
		{"typo with its group", shared.Kubeconfig, []string{"list", "deploymnts.apps"}, 9, `did you mean "deployments.apps"`},
		// A name close to none: no suggestion, whatever the length of
		// its group (fresh user try 16: a "widgets.example.com" was
		// offered ingresses.networking.k8s.io, limitranges or nodes).
		{"unknown type with a group", shared.Kubeconfig, []string{"list", "zqxjk.nosuch.example"}, 9, `"zqxjk.nosuch.example": run 'kubectl api-resources'`},
		{"unknown short type with a group", shared.Kubeconfig, []string{"list", "foo.bar"}, 9, `"foo.bar": run 'kubectl api-resources'`},
		{"empty type with a group", shared.Kubeconfig, []string{"list", ".apps"}, 2, "has an empty part between its dots"},
		// The dots of a NAME are the name's (fresh user try 16: the
		// type was blamed).
		{"a NAME of dots and a slash", shared.Kubeconfig, []string{"list", "cm/../x"}, 2, `"cm/../x" is not a resource type: give cm/NAME or cm alone`},
		{"a dot alone", shared.Kubeconfig, []string{"list", "."}, 2, "has an empty part between its dots"},
		{"not listable", shared.Kubeconfig, []string{"list", "tokenreviews"}, 2, "does not support list"},
		{"forbidden", shared.UserKubeconfig, []string{"list", "configmaps", "-n", "default"}, 7, `cannot list resource "configmaps"`},
		{"bad rv", shared.Kubeconfig, []string{"list", "cm", "--rv", "abc"}, 2, "is not a resourceVersion"},
		{"negative rv", shared.Kubeconfig, []string{"list", "cm", "--rv", "-1"}, 2, "is not a resourceVersion"},
		{"match without rv", shared.Kubeconfig, []string{"list", "cm", "--rv-match", "Exact"}, 2, "--rv-match needs --rv"},
		{"unreachable", "", []string{"list", "cm", "--server", "https://127.0.0.1:1", "--request-timeout", "5s"}, 4, "cannot reach"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := framework.Run(t, c.kubeconfig, time.Minute, c.args...)
			if r.Code != c.code {
				t.Fatalf("exit code: want %d, got %d; stderr: %s", c.code, r.Code, r.Stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], c.want) {
				t.Fatalf("want one error line containing %q, got:\n%s", c.want, r.Stderr)
			}
		})
	}
}

func TestListRVOnlyQuery(t *testing.T) {
	// The exact request --rv-only makes, visible in the audit log.
	_, ns := newNamespace(t, shared, "list-audit")
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "-n", ns, "--rv-only")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	events := framework.ReadAudit(t, shared.APIServers[0].AuditLog)
	found := false
	for _, e := range events {
		if e.UserAgent == "kubectl-watchrv/"+framework.PluginVersion && strings.HasPrefix(e.RequestURI, "/api/v1/namespaces/"+ns+"/configmaps?") {
			u, _ := url.Parse(e.RequestURI)
			if u.Query().Get("limit") == "1" && e.Verb == "list" {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("no list of %s/configmaps with limit=1 from kubectl-watchrv in the audit log", ns)
	}
}

// rawListRV is the metadata.resourceVersion of a raw GET of the namespace's
// configmaps with the given query parameters (name, value, ...), read by the
// harness's own client.
func rawListRV(t *testing.T, cs *kubernetes.Clientset, ns string, params ...string) string {
	t.Helper()
	req := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces", ns, "configmaps")
	for i := 0; i+1 < len(params); i += 2 {
		req = req.Param(params[i], params[i+1])
	}
	raw, err := req.DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	return list.Metadata.ResourceVersion
}

func rvLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// TestListRVOnlyReadsNoMetrics: --rv-only is one item's read ("about 1 KB,
// whatever the collection size", docs/list.md); the /metrics read that
// picks the read-semantics texts (hundreds of KB here) is for the full
// list only. The audit log shows each run's requests.
func TestListRVOnlyReadsNoMetrics(t *testing.T) {
	_, ns := newNamespace(t, shared, "list-rv-only")
	requests := func(args ...string) []string {
		before := len(framework.ReadAudit(t, shared.APIServers[0].AuditLog))
		// A first run (a new HOME: no server facts kept from an earlier
		// run) is the one that reads /metrics, if any does.
		if r := framework.RunInHome(t, t.TempDir(), shared.Kubeconfig, nil, time.Minute, append([]string{"list", "-o", "json"}, args...)...); r.Code != 0 {
			t.Fatalf("list %v: exit %d: %s", args, r.Code, r.Stderr)
		}
		var out []string
		for _, e := range framework.ReadAudit(t, shared.APIServers[0].AuditLog)[before:] {
			if strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") && e.Stage == "ResponseComplete" {
				out = append(out, e.Verb+" "+e.RequestURI)
			}
		}
		return out
	}
	hasMetrics := func(reqs []string) bool {
		for _, r := range reqs {
			if strings.HasSuffix(r, " /metrics") || strings.Contains(r, " /metrics?") {
				return true
			}
		}
		return false
	}
	// Issue 23: the full list reads the two families its texts need, by
	// name, never the whole /metrics.
	full := requests("configmaps", "-n", ns)
	if !hasMetrics(full) {
		t.Fatalf("the full list reads /metrics for its texts; the audit log shows %v", full)
	}
	for _, r := range full {
		if strings.HasSuffix(r, " /metrics") || (strings.Contains(r, " /metrics?") && !strings.Contains(r, "name%5B%5D=kubernetes_feature_enabled&name%5B%5D=watch_cache_capacity")) {
			t.Errorf("the full list read more of /metrics than the two families: %v", full)
		}
	}
	if only := requests("configmaps", "-n", ns, "--rv-only"); hasMetrics(only) {
		t.Errorf("list --rv-only read /metrics: %v", only)
	}
}

// --rv-only asks for one item; a list at RV 0 that the watch cache serves
// may ignore limit=1 and send the whole collection. The output then says
// how many items came and shows their newest RV, never "the item read".
func TestListRVOnlyAtRV0SaysWhatCame(t *testing.T) {
	ctx := context.Background()
	cs, ns := newNamespace(t, shared, "list-rvonly0")
	if err := framework.CreateConfigMaps(ctx, cs, ns, "x", 5, 8, 1); err != nil {
		t.Fatal(err)
	}
	r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "cm", "-n", ns, "--rv-only", "--rv", "0")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	got := runListJSON(t, shared.Kubeconfig, "cm", "-n", ns, "--rv-only", "--rv", "0")
	t.Logf("--rv-only --rv 0: %d item(s) came", got.ItemCount)
	switch {
	case got.ItemCount > 1 && (!strings.Contains(r.Stdout, "the server ignored limit=1 and sent all") || strings.Contains(r.Stdout, "RV of the item read")):
		t.Fatalf("%d items came, the output does not say so:\n%s", got.ItemCount, r.Stdout)
	case got.ItemCount <= 1 && !strings.Contains(r.Stdout, "RV of the item read"):
		t.Fatalf("one item came:\n%s", r.Stdout)
	}
}

// A list and the server facts read beside it share one connection, as
// kubectl get --raw's requests do: two requests begun at once each dialed
// one, two TLS handshakes for the server (issue 23). Counted by a TCP
// link in front of the real API server: a first run (facts read from
// /metrics: /version, /metrics, the list), a second (facts kept: /version
// and the list), and --rv-only (the list) each open one connection.
func TestListTakesOneConnection(t *testing.T) {
	_, ns := newNamespace(t, shared, "list-one-conn")
	link, err := framework.StartPausableLink(strings.TrimPrefix(shared.APIServers[0].URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { link.Close() })
	kc, err := shared.WriteKubeconfigFor("list-one-conn", "https://"+link.Addr(), shared.APIServers[0].CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// kubectl's discovery cache, warm as a user's second run finds it.
	if r := framework.RunInHome(t, home, kc, nil, time.Minute, "list", "configmaps", "-n", ns, "--rv-only"); r.Code != 0 {
		t.Fatalf("warming the discovery cache: exit %d: %s", r.Code, r.Stderr)
	}
	for _, run := range []struct {
		name string
		args []string
	}{
		{"facts read from /metrics", []string{"list", "configmaps", "-n", ns, "-v"}},
		{"facts kept", []string{"list", "configmaps", "-n", ns, "-v"}},
		{"--rv-only", []string{"list", "configmaps", "-n", ns, "--rv-only", "-v"}},
	} {
		before, _ := link.Accepted()
		r := framework.RunInHome(t, home, kc, nil, time.Minute, run.args...)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d: %s", run.name, r.Code, r.Stderr)
		}
		sent := strings.Count(r.Stderr, "-v GET ")
		if after, _ := link.Accepted(); after-before != 1 {
			n := after - before
			t.Errorf("%s: %d connection(s) for %d request(s), want 1:\n%s", run.name, n, sent, r.Stderr)
		}
		if run.name == "facts read from /metrics" && !strings.Contains(r.Stderr, "/metrics?") {
			t.Errorf("%s: no /metrics read, the case proves nothing:\n%s", run.name, r.Stderr)
		}
	}
}
