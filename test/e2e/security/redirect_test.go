//go:build e2e

package security

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A server that answers a redirect to another host, over plain http, gets
// no bearer token there (issue 16, item 2): client-go adds the token in a
// round tripper under http.Client, so a followed redirect carried it in
// cleartext. The plugin follows no redirect, for every kind of request it
// sends: discovery, list, watch, probe's watches, /version, EndpointSlices.
// The front passes everything else through to the real API server.
func TestRedirectsCarryNoCredentials(t *testing.T) {
	_, ns := newNamespace(t, shared, "redirect")
	rec := newRecorder(t)
	f := newFront(t, shared.APIServers[0], rec.URL)
	kubeconfig, err := shared.WriteKubeconfigFor("redirect.kubeconfig", f.URL, f.CAFile, framework.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	collection := "/api/v1/namespaces/" + ns + "/configmaps"
	cases := []struct {
		name     string
		redirect []string
		args     []string
	}{
		{"discovery", []string{"/api"}, []string{"list", "configmaps", "-n", ns}},
		{"list", []string{collection}, []string{"list", "configmaps", "-n", ns}},
		{"list --rv-only", []string{collection}, []string{"list", "configmaps", "-n", ns, "--rv-only"}},
		{"watch", []string{collection}, []string{"watch", "configmaps", "-n", ns, "--timeout", "5s"}},
		{"watch --rv list", []string{collection}, []string{"watch", "configmaps", "-n", ns, "--rv", "list", "--timeout", "5s"}},
		{"watch --follow", []string{collection}, []string{"watch", "configmaps", "-n", ns, "--follow", "--timeout", "5s"}},
		{"probe", []string{collection}, []string{"probe", "configmaps", "-n", ns}},
		{"streaming", []string{collection}, []string{"streaming", "configmaps", "-n", ns}},
		{"version", []string{"/version"}, []string{"version"}},
		{"servers", []string{"/apis/discovery.k8s.io"}, []string{"list", "configmaps", "-n", ns, "--servers"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(rec.requests())
			f.redirectPaths(c.redirect...)
			r := framework.Run(t, kubeconfig, time.Minute, append(c.args, "--request-timeout", "10s")...)
			for _, q := range rec.requests()[before:] {
				if q.Authorization != "" {
					t.Errorf("the redirect target got %s with Authorization %q", q.Path, q.Authorization)
				} else {
					t.Errorf("a redirect was followed to %s", q.Path)
				}
			}
			if r.Code == 0 {
				t.Fatalf("exit 0 although the server answered a redirect; stdout: %s", r.Stdout)
			}
			line := r.Stderr
			for _, want := range []string{"302 Found", "127.0.0.2", "not followed", "token=xxxxx"} {
				if !strings.Contains(line, want) {
					t.Errorf("stderr lacks %q: %s", want, line)
				}
			}
			if strings.Contains(r.Stdout+r.Stderr, "LEAKED-QUERY") {
				t.Errorf("the redirect's query value was printed: %s", line)
			}
			t.Logf("exit %d: %s", r.Code, strings.TrimSpace(line))
		})
	}
	// The same kubeconfig through the same front works when nothing
	// redirects: the refusal is of the redirect, not of the front.
	f.redirectPaths()
	if r := framework.Run(t, kubeconfig, time.Minute, "list", "configmaps", "-n", ns); r.Code != 0 {
		t.Fatalf("list through the front without redirects: exit %d: %s", r.Code, r.Stderr)
	}
}

var newNamespace = framework.Namespace
