//go:build e2e

package security

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A password in the kubeconfig's server URL is never printed (issue 16,
// item 3): every command that names the server names it redacted, for each
// way a request can fail against the real API server.
func TestServerPasswordIsNeverPrinted(t *testing.T) {
	a := shared.APIServers[0]
	withPassword := func(hostport string) string { return "https://admin:SECRET-PW@" + hostport }
	apiHost := strings.TrimPrefix(a.URL, "https://")
	otherCA := filepath.Join(t.TempDir(), "other-ca.crt")
	if err := framework.WriteCA(otherCA, "not-the-apiserver-ca"); err != nil {
		t.Fatal(err)
	}
	// With a password in the URL, net/http sends it as basic auth (before
	// client-go's bearer token, which is then not added) and kube-apiserver
	// ignores basic auth: the "answered" case runs as system:anonymous and
	// fails with 403 (version even succeeds), messages that name no server.
	kubeconfigs := []struct {
		name, server, ca, token string
		failsNamingServer       bool
	}{
		{"unreachable", withPassword(closedPort(t)), a.CAFile, framework.AdminToken, true},
		{"TLS", withPassword(apiHost), otherCA, framework.AdminToken, true},
		{"answered", withPassword(apiHost), a.CAFile, framework.AdminToken, false},
	}
	commands := map[string][]string{
		"list":                  {"list", "configmaps", "-n", "default"},
		"watch":                 {"watch", "configmaps", "-n", "default", "--timeout", "3s"},
		"probe":                 {"probe", "configmaps", "-n", "default"},
		"streaming":             {"streaming", "configmaps", "-n", "default"},
		"version":               {"version"},
		"list --endpoints":      {"list", "configmaps", "-n", "default", "--endpoints", apiHost},
		"probe --servers":       {"probe", "configmaps", "-n", "default", "--servers"},
		"explain-error --check": {"explain-error", "--check", "-n", "default", "too old resource version: 1 (2)"},
	}
	for _, k := range kubeconfigs {
		kubeconfig, err := shared.WriteKubeconfigFor("pw-"+k.name+".kubeconfig", k.server, k.ca, k.token)
		if err != nil {
			t.Fatal(err)
		}
		for label, args := range commands {
			t.Run(k.name+"/"+label, func(t *testing.T) {
				r := framework.Run(t, kubeconfig, time.Minute, append(args, "--request-timeout", "5s")...)
				if strings.Contains(r.Stdout+r.Stderr, "SECRET-PW") {
					t.Fatalf("the password of the server URL was printed (exit %d): %s", r.Code, r.Stderr)
				}
				if !k.failsNamingServer {
					t.Logf("exit %d: %.200s", r.Code, strings.TrimSpace(r.Stderr))
					return
				}
				if r.Code == 0 {
					t.Fatalf("exit 0; stderr: %s", r.Stderr)
				}
				if !strings.Contains(r.Stderr, "admin:xxxxx@") {
					t.Fatalf("the error does not name the server (redacted): %s", r.Stderr)
				}
				t.Logf("exit %d: %.200s", r.Code, strings.TrimSpace(r.Stderr))
			})
		}
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
