//go:build e2e

package faults

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// goTransportWords are net/http's and crypto/tls's own words for a
// connection that failed: none may reach a line of the plugin.
var goTransportWords = []string{
	"server gave HTTP response", "Client sent an HTTP request", "read tcp", "proxyconnect",
	"x509:", "tls: failed to verify", "connection reset by peer",
}

// TestAConnectionGoWordsIsNamedWithItsFix (adversary try 44): a
// connection that failed in a way Go words (an http:// URL of a TLS
// server, an https:// URL or --endpoints address of a plain-HTTP
// listener, a proxy-url that answers CONNECT with 502 or 407, a
// certificate of an unknown authority) is named, on every command and in
// every per-server row, as the problem it is, with its fix and its
// documented exit code (docs/exit-codes.md), never in Go's words.
func TestAConnectionGoWordsIsNamedWithItsFix(t *testing.T) {
	a := shared.APIServers[0]
	tlsHost := strings.TrimPrefix(a.URL, "https://")
	plain, _ := framework.ServeScript(t, nil)
	// The discovery read once without the proxy, kept in a --cache-dir:
	// through the refusing proxy, each command then reaches its request.
	cache := t.TempDir()
	if r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "configmaps", "-n", "default", "--rv-only", "--cache-dir", cache); r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	commands := func(endpoints string) [][]string {
		return [][]string{
			{"list", "configmaps", "-n", "default"},
			{"watch", "configmaps", "-n", "default", "--timeout", "3s"},
			{"probe", "configmaps", "-n", "default"},
			{"probe", "configmaps", "-n", "default", "--endpoints", endpoints},
			{"top", "--once", "--interval", "1s"},
			{"top", "--once", "--interval", "1s", "--endpoints", endpoints},
			{"explain-error", "--check", "-n", "default", "too old resource version: 1 (2)"},
			{"explain-error", "--check", "-n", "default", "--endpoints", endpoints, "too old resource version: 1 (2)"},
			{"streaming", "configmaps", "-n", "default"},
		}
	}
	type misconfig struct {
		name       string
		kubeconfig string
		endpoints  string
		code       int
		want       []string // in the last stderr line: the problem and its fix
		// onlyEndpoints: the kubeconfig's server answers; only the
		// --endpoints address meets the misconfiguration.
		onlyEndpoints bool
	}
	cases := []misconfig{{
		name:       "http:// to a TLS server",
		kubeconfig: kubeconfigFor(t, "scheme-http-to-tls.kubeconfig", "http://"+tlsHost, a.CAFile, framework.AdminToken),
		endpoints:  tlsHost,
		code:       5,
		want:       []string{"speaks TLS", "https://"},
	}, {
		// The kubeconfig's server answers (a plain-HTTP listener of the
		// API's discovery): the rows are what meets the TLS port.
		name:          "--endpoints TLS port, kubeconfig http://",
		kubeconfig:    kubeconfigFor(t, "scheme-http-endpoints.kubeconfig", "http://"+plain.Host(), a.CAFile, framework.AdminToken),
		endpoints:     tlsHost,
		code:          5,
		want:          []string{"speaks TLS", "https://"},
		onlyEndpoints: true,
	}, {
		name:       "https:// to a plain-HTTP listener",
		kubeconfig: kubeconfigFor(t, "scheme-https-to-plain.kubeconfig", "https://"+plain.Host(), a.CAFile, framework.AdminToken),
		endpoints:  plain.Host(),
		code:       5,
		want:       []string{"plain HTTP", "http://"},
	}, {
		name:          "--endpoints plain-HTTP listener, kubeconfig https://",
		kubeconfig:    shared.Kubeconfig,
		endpoints:     plain.Host(),
		code:          5,
		want:          []string{"plain HTTP", "http://"},
		onlyEndpoints: true,
	}}
	for _, p := range []struct {
		code int
		want string
	}{{http.StatusBadGateway, "502 Bad Gateway"}, {http.StatusProxyAuthRequired, "407 Proxy Authentication Required"}} {
		kc, err := shared.WriteKubeconfigVia("scheme-proxy-"+http.StatusText(p.code)[:3]+".kubeconfig", a.URL, a.CAFile, framework.AdminToken, framework.ServeRefusingProxy(t, p.code))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, misconfig{name: "proxy-url answers CONNECT with " + p.want, kubeconfig: kc, endpoints: tlsHost, code: 4, want: []string{"proxy-url", p.want}})
	}
	for _, c := range cases {
		for _, args := range commands(c.endpoints) {
			if c.onlyEndpoints && !strings.Contains(strings.Join(args, " "), "--endpoints") {
				continue
			}
			args = append(args, "--request-timeout", "5s")
			if !strings.HasPrefix(c.name, "proxy") || args[0] != "explain-error" {
				args = append(args, "--cache-dir", cache)
			}
			r := framework.Run(t, c.kubeconfig, 2*time.Minute, args...)
			out := r.Stdout + r.Stderr
			lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
			last := lines[len(lines)-1]
			t.Logf("%s: %v: exit %d: %s", c.name, args, r.Code, last)
			if r.Code != c.code {
				t.Errorf("%s: %v: exit %d, want %d:\n%s", c.name, args, r.Code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(last, w) {
					t.Errorf("%s: %v: the last line does not say %q:\n%s", c.name, args, w, out)
				}
			}
			for _, w := range goTransportWords {
				if strings.Contains(out, w) {
					t.Errorf("%s: %v says Go's words %q:\n%s", c.name, args, w, out)
				}
			}
			if strings.HasPrefix(c.name, "proxy") && strings.Contains(strings.ReplaceAll(out, c.want[1], ""), strings.SplitN(c.want[1], " ", 2)[1]) {
				t.Errorf("%s: %v says the proxy's status text alone:\n%s", c.name, args, out)
			}
		}
	}
	// A certificate of an unknown authority, on two --endpoints: the
	// none-measured line says it as the one-server line does.
	wrongCA := kubeconfigFor(t, "scheme-wrongca.kubeconfig", a.URL, writeOtherCA(t), framework.AdminToken)
	for _, args := range [][]string{
		{"list", "configmaps", "-n", "default"},
		{"probe", "configmaps", "-n", "default", "--endpoints", tlsHost + "," + closedPort(t)},
		{"top", "--once", "--interval", "1s", "--endpoints", tlsHost + "," + closedPort(t)},
	} {
		r := framework.Run(t, wrongCA, 2*time.Minute, append(args, "--request-timeout", "5s", "--cache-dir", cache)...)
		out := r.Stdout + r.Stderr
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		last := lines[len(lines)-1]
		t.Logf("wrong CA: %v: exit %d: %s", args, r.Code, last)
		if r.Code != 5 && r.Code != 12 {
			t.Errorf("wrong CA: %v: exit %d, want 5 (or 12 beside a closed port):\n%s", args, r.Code, out)
		}
		if !strings.Contains(last, "certificate-authority") || !strings.Contains(last, "unknown authority") {
			t.Errorf("wrong CA: %v: the last line does not name the unknown authority and its fix:\n%s", args, out)
		}
		for _, w := range goTransportWords {
			if strings.Contains(out, w) {
				t.Errorf("wrong CA: %v says Go's words %q:\n%s", args, w, out)
			}
		}
	}
}
