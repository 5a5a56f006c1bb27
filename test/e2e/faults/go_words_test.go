//go:build e2e

package faults

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// goClientForm is how net/http's *url.Error names a request: its method
// in Go's case and the whole URL quoted ("Get \"https://127.0.0.1:1/api?
// timeout=32s\": ..."), and the timeout parameter the plugin adds.
var goClientForm = regexp.MustCompile(`\b(Get|Post|Put|Patch|Delete|Head) "|[?&]timeout=[0-9]+s`)

// TestNoLineSaysARequestInTheGoClientsForm (fresh user try 38 F3,
// adversary try 38 F4): every command, its error line and its rows, names
// a failed request as the plugin names requests ("GET /api: ..."), never
// in net/http's form, for a server that refuses the connection, one whose
// certificate the kubeconfig does not trust, and a closed --endpoints
// address beside the real server.
func TestNoLineSaysARequestInTheGoClientsForm(t *testing.T) {
	a := shared.APIServers[0]
	closed := closedPort(t)
	refused := kubeconfigFor(t, "gowords-refused.kubeconfig", "https://"+closed, a.CAFile, framework.AdminToken)
	wrongCA := kubeconfigFor(t, "gowords-wrongca.kubeconfig", a.URL, writeOtherCA(t), framework.AdminToken)
	// A proxy-url nothing listens at (adversary try 39 F3): the proxy is
	// named, and the fix is the proxy's.
	viaProxy, err := shared.WriteKubeconfigVia("gowords-proxy.kubeconfig", a.URL, a.CAFile, framework.AdminToken, "http://u:pw@"+closedPort(t))
	if err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"list", "configmaps", "-n", "default"},
		{"list", "configmaps", "-n", "default", "--rv-only"},
		{"watch", "configmaps", "-n", "default", "--timeout", "2s"},
		{"probe", "configmaps", "-n", "default"},
		{"probe", "--all"},
		{"streaming", "configmaps", "-n", "default"},
		{"streaming", "--all"},
		{"top", "--once", "--interval", "1s"},
	}
	for _, kc := range []struct{ name, path, want string }{{"refused", refused, "connection refused: nothing listens at " + closed}, {"wrong CA", wrongCA, "certificate"}, {"refused proxy", viaProxy, "the proxy refused the connection"}} {
		for _, args := range commands {
			r := framework.Run(t, kc.path, time.Minute, append(args, "--request-timeout", "5s")...)
			out := r.Stdout + r.Stderr
			if r.Code == 0 || !strings.Contains(out, kc.want) {
				t.Errorf("%s: %v: exit %d without %q (the case does not reach what it attacks):\n%s", kc.name, args, r.Code, kc.want, out)
			}
			if m := goClientForm.FindString(out); m != "" {
				t.Errorf("%s: %v says a request in Go's form (%q):\n%s", kc.name, args, m, out)
			}
		}
	}
	host := strings.TrimPrefix(a.URL, "https://")
	for _, args := range [][]string{
		{"list", "configmaps", "-n", "default", "--endpoints", host + "," + closed},
		{"probe", "configmaps", "-n", "default", "--endpoints", host + "," + closed},
	} {
		r := framework.Run(t, shared.Kubeconfig, 2*time.Minute, append(args, "--request-timeout", "5s")...)
		out := r.Stdout + r.Stderr
		if r.Code != 12 || !strings.Contains(out, "nothing listens at "+closed) {
			t.Errorf("%v: exit %d, want 12 and the closed endpoint said (the case does not reach what it attacks):\n%s", args, r.Code, out)
		}
		if m := goClientForm.FindString(out); m != "" {
			t.Errorf("%v says a request in Go's form (%q):\n%s", args, m, out)
		}
	}
}
