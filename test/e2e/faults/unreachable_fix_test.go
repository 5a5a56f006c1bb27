//go:build e2e

package faults

import (
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestAnUnreachableServerIsNamedAndFixedAsDialled (adversary try 41 F2,
// F3, F4), over every command that takes --endpoints: a closed endpoint,
// alone or beside the real server, is named by its own address, never as
// the kubeconfig's server (which is up), and its fix is the address's,
// never "--server, --context or --kubeconfig"; through a proxy-url that
// refuses, every row and line gives the proxy's fix, never "set proxy-url"
// beside the proxy-url that refused; and a run over one server never
// speaks of servers that waited at the same time.
func TestAnUnreachableServerIsNamedAndFixedAsDialled(t *testing.T) {
	a := shared.APIServers[0]
	host := strings.TrimPrefix(a.URL, "https://")
	closed := closedPort(t)
	viaProxy, err := shared.WriteKubeconfigVia("unreachable-proxy.kubeconfig", a.URL, a.CAFile, framework.AdminToken, "http://"+closedPort(t))
	if err != nil {
		t.Fatal(err)
	}
	commands := func(endpoints string) [][]string {
		return [][]string{
			{"list", "configmaps", "-n", "default", "--endpoints", endpoints},
			{"probe", "configmaps", "-n", "default", "--endpoints", endpoints},
			{"top", "--once", "--interval", "1s", "--endpoints", endpoints},
			{"explain-error", "--check", "-n", "default", "--endpoints", endpoints, "too old resource version: 1 (2)"},
		}
	}
	for _, endpoints := range []string{closed, host + "," + closed} {
		for _, args := range commands(endpoints) {
			r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, append(args, "--request-timeout", "5s")...)
			out := r.Stdout + r.Stderr
			if r.Code == 0 || !strings.Contains(out, "nothing listens at "+closed) {
				t.Errorf("%v: exit %d without the closed endpoint said (the case does not reach what it attacks):\n%s", args, r.Code, out)
				continue
			}
			for _, wrong := range []string{"cannot reach the API server at " + a.URL, "check --server, --context or --kubeconfig"} {
				if strings.Contains(out, wrong) {
					t.Errorf("%v says %q of an --endpoints address that was not the kubeconfig's server:\n%s", args, wrong, out)
				}
			}
			if !strings.Contains(endpoints, ",") && strings.Contains(out, "at the same time") {
				t.Errorf("%v: one server's run speaks of servers that waited at the same time:\n%s", args, out)
			}
		}
	}
	// The discovery read once without the proxy, kept in a --cache-dir:
	// through the proxy, each command then reaches its rows.
	cache := t.TempDir()
	if r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "configmaps", "-n", "default", "--rv-only", "--cache-dir", cache); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, args := range commands(host) {
		r := framework.Run(t, viaProxy, 2*time.Minute, append(args, "--request-timeout", "5s", "--cache-dir", cache)...)
		out := r.Stdout + r.Stderr
		if r.Code == 0 || !strings.Contains(out, "the proxy refused the connection") {
			t.Errorf("refused proxy: %v: exit %d without the proxy said (the case does not reach what it attacks):\n%s", args, r.Code, out)
			continue
		}
		if strings.Contains(out, "set proxy-url") || strings.Contains(out, "reached from here") || strings.Contains(out, "reachable from here") || !strings.Contains(out, "check proxy-url of the kubeconfig's cluster") {
			t.Errorf("refused proxy: %v: a fix other than the proxy's:\n%s", args, out)
		}
	}
}
