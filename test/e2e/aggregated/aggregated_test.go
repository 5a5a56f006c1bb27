//go:build e2e

package aggregated

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

const gadgetsPath = "/apis/" + framework.ExtensionGroup + "/" + framework.ExtensionVersion + "/namespaces/" + framework.ExtensionNamespace + "/" + framework.ExtensionResource

func gadgetNames() []string {
	var names []string
	for _, g := range agg.Extension.Gadgets() {
		names = append(names, g.Name)
	}
	return names
}

// requestsSince returns the extension server's requests for path made
// after n earlier ones.
func requestsSince(n int, path string) []framework.ExtensionRequest {
	var out []framework.ExtensionRequest
	for _, r := range agg.Extension.Requests()[n:] {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// assertProxied checks that the aggregator's traffic went through the
// egress CONNECT proxy to the Service's ClusterIP, and nowhere else.
func assertProxied(t *testing.T) {
	t.Helper()
	target := agg.ServiceTarget()
	if target == "" {
		t.Fatal("the aggregated API has no Service target")
	}
	if !slices.Contains(agg.Proxy.Seen(), target) {
		t.Errorf("the egress proxy never saw CONNECT %s; saw %v", target, agg.Proxy.Seen())
	}
	if r := agg.Proxy.Refused(); len(r) != 0 {
		t.Errorf("the egress proxy refused targets %v (only %s may be dialled)", r, target)
	}
}

func TestAPIServiceAvailable(t *testing.T) {
	status, msg, err := framework.APIServiceAvailable(context.Background(), cluster, 0)
	if err != nil {
		t.Fatal(err)
	}
	if status != "True" {
		t.Fatalf("APIService %s Available=%q: %s", framework.AggregatedAPIServiceName, status, msg)
	}
	// The aggregator's availability check is a real GET of the group
	// version, made by system:kube-aggregator with the front-proxy cert.
	var checked bool
	for _, r := range agg.Extension.Requests() {
		if r.Path == "/apis/"+framework.ExtensionGroup+"/"+framework.ExtensionVersion && r.User == "system:kube-aggregator" && r.ClientCN == framework.FrontProxyClientCN {
			checked = true
		}
	}
	if !checked {
		t.Errorf("the extension server never got the aggregator's discovery check; requests: %+v", agg.Extension.Requests())
	}
	assertProxied(t)
}

func TestListThroughAggregator(t *testing.T) {
	cfg := cluster.RESTConfig(0)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := len(agg.Extension.Requests())
	resp, err := hc.Get(cfg.Host + gadgetsPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("list %s: HTTP %d: %s", gadgetsPath, resp.StatusCode, body)
	}
	var list struct {
		Kind     string `json:"kind"`
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("list body %q: %v", body, err)
	}
	var names []string
	for _, it := range list.Items {
		names = append(names, it.Metadata.Name)
	}
	if !slices.Equal(names, gadgetNames()) {
		t.Errorf("listed %v, the extension server has %v", names, gadgetNames())
	}
	if want := strconv.Itoa(agg.Extension.ListRV()); list.Metadata.ResourceVersion != want {
		t.Errorf("list resourceVersion %q, want %q", list.Metadata.ResourceVersion, want)
	}
	got := requestsSince(before, gadgetsPath)
	if len(got) != 1 {
		t.Fatalf("the extension server got %d list requests, want 1: %+v", len(got), got)
	}
	// The aggregator forwards the authenticated user, not its own.
	if r := got[0]; r.User != "admin" || !slices.Contains(r.Groups, "system:masters") || r.ClientCN != framework.FrontProxyClientCN {
		t.Errorf("forwarded as user %q groups %v cert %q, want admin in system:masters via %s", r.User, r.Groups, r.ClientCN, framework.FrontProxyClientCN)
	}
	assertProxied(t)
}

func TestStreamingWatchOnAggregatedGetsNoBookmark(t *testing.T) {
	before := len(agg.Extension.Requests())
	events, ended, open := collectWatch(t, cluster.RESTConfig(0), gadgetsPath, streamingQuery+"&timeoutSeconds=60", 5*time.Second)
	if ended {
		t.Fatalf("got an initial-events-end bookmark from a server that ignores sendInitialEvents: %+v", events)
	}
	if !open {
		t.Errorf("the server ended the watch before 5s; a waiting informer would relist, not hang")
	}
	var added []string
	for _, e := range events {
		if e.Type != "ADDED" {
			t.Errorf("unexpected %s event for %q", e.Type, e.Object.Metadata.Name)
			continue
		}
		added = append(added, e.Object.Metadata.Name)
	}
	if !slices.Equal(added, gadgetNames()) {
		t.Errorf("ADDED %v, want one per object %v", added, gadgetNames())
	}
	got := requestsSince(before, gadgetsPath)
	if len(got) != 1 {
		t.Fatalf("the extension server got %d watch requests, want 1: %+v", len(got), got)
	}
	q, err := url.ParseQuery(got[0].RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"watch": "true", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true", "timeoutSeconds": "60"}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("the extension server got %s=%q, want %q (raw query %q)", k, q.Get(k), v, got[0].RawQuery)
		}
	}
	assertProxied(t)
}

func TestStreamingWatchOnCRDEndsWithBookmark(t *testing.T) {
	ctx := context.Background()
	gvr, err := cluster.CreateWidgetCRD(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, ns := framework.Namespace(t, cluster, "agg-crd-stream")
	names := []string{"w-1", "w-2"}
	for _, n := range names {
		if err := cluster.CreateWidget(ctx, ns, n); err != nil {
			t.Fatal(err)
		}
	}
	path := "/apis/" + gvr.Group + "/" + gvr.Version + "/namespaces/" + ns + "/" + gvr.Resource
	events, ended, _ := collectWatch(t, cluster.RESTConfig(0), path, streamingQuery, 30*time.Second)
	if !ended {
		t.Fatalf("no initial-events-end bookmark within 30s from the API server's own CRD; events %+v", events)
	}
	var added []string
	for _, e := range events[:len(events)-1] {
		if e.Type != "ADDED" {
			t.Errorf("unexpected %s event before the bookmark", e.Type)
		}
		added = append(added, e.Object.Metadata.Name)
	}
	slices.Sort(added)
	if !slices.Equal(added, names) {
		t.Errorf("ADDED %v before the bookmark, want %v", added, names)
	}
	if rv := events[len(events)-1].Object.Metadata.ResourceVersion; rv == "" || rv == "0" {
		t.Errorf("the initial-events-end bookmark has resourceVersion %q", rv)
	}
}

// The extension server is not open to anyone: without the front-proxy
// client certificate the TLS handshake fails.
func TestExtensionServerRequiresFrontProxyCert(t *testing.T) {
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	before := len(agg.Extension.Requests())
	resp, err := hc.Get(agg.Extension.URL + "/apis")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET without a client certificate: HTTP %d, want a failed handshake", resp.StatusCode)
	}
	for _, r := range agg.Extension.Requests()[before:] {
		if r.ClientCN == "" {
			t.Errorf("the extension server served a client without certificate: %+v", r)
		}
	}
}
