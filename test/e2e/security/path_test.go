//go:build e2e

package security

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A namespace or a name never changes the path of a request (issue 16,
// item 4): "-n .." listed every namespace, and "-n
// ../../../api/v1/namespaces/kube-system/secrets" made the audit log record
// a read of secrets in kube-system. Each is refused with exit 2 before any
// request, in every command, and the real server's audit log shows no
// request outside the namespace.
func TestNamespacesAndNamesStayInTheirPath(t *testing.T) {
	_, ns := newNamespace(t, shared, "paths")
	a := shared.APIServers[0]
	// Only this test's requests are judged: others of the package read
	// kube-system legitimately (the identity leases of --servers).
	before := len(framework.ReadAudit(t, a.AuditLog))
	badNamespaces := []string{"..", "../../../api/v1/namespaces/kube-system/secrets", "a/b", "%2e%2e", ".", "Default", "kube-system/secrets"}
	commands := map[string][]string{
		"list":                  {"list", "configmaps"},
		"list --rv-only":        {"list", "configmaps", "--rv-only"},
		"watch":                 {"watch", "configmaps", "--timeout", "3s"},
		"probe":                 {"probe", "configmaps"},
		"streaming":             {"streaming", "configmaps"},
		"list --servers":        {"list", "configmaps", "--servers"},
		"explain-error --check": {"explain-error", "--check", "too old resource version: 1 (2)"},
	}
	for _, bad := range badNamespaces {
		for label, args := range commands {
			t.Run(fmt.Sprintf("-n %s/%s", bad, label), func(t *testing.T) {
				r := framework.Run(t, shared.Kubeconfig, time.Minute, append(args, "-n", bad)...)
				wantUsage(t, r, "is not a namespace name")
			})
		}
	}
	// The same namespace from the kubeconfig's context, not from -n.
	ctxKubeconfig := contextNamespaceKubeconfig(t, a, "../../../api/v1/namespaces/kube-system/secrets")
	for label, args := range commands {
		t.Run("context namespace/"+label, func(t *testing.T) {
			wantUsage(t, framework.Run(t, ctxKubeconfig, time.Minute, args...), "the namespace of the kubeconfig's context")
		})
	}
	// Names: NAME and TYPE/NAME are checked as path segments.
	for _, args := range [][]string{
		{"list", "configmaps", ".."}, {"list", "configmaps/.."}, {"list", "configmaps", "a/b"}, {"list", "configmaps", "a%2fb"},
		{"watch", "configmaps", ".."}, {"watch", "configmaps/.", "--timeout", "3s"}, {"watch", "configmaps", "../secrets"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			wantUsage(t, framework.Run(t, shared.Kubeconfig, time.Minute, append(args, "-n", ns)...), "is not an object name")
		})
	}

	// A good list last: once its request is in the audit log, every earlier
	// one is too.
	if r := framework.Run(t, shared.Kubeconfig, time.Minute, "list", "configmaps", "-n", ns); r.Code != 0 {
		t.Fatalf("list -n %s: exit %d: %s", ns, r.Code, r.Stderr)
	}
	marker := "/api/v1/namespaces/" + ns + "/configmaps?"
	var events []framework.AuditEvent
	deadline := time.Now().Add(10 * time.Second)
	for {
		events = framework.ReadAudit(t, a.AuditLog)[before:]
		if hasRequest(events, marker) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !hasRequest(events, marker) {
		t.Fatalf("the audit log never recorded %s", marker)
	}
	for _, e := range events {
		if !strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") {
			continue
		}
		uri := e.RequestURI
		if strings.Contains(uri, "secrets") || strings.HasPrefix(uri, "/api/v1/configmaps") || strings.Contains(uri, "/namespaces/kube-system/") {
			t.Errorf("the plugin sent %s %s (user %s)", e.Verb, uri, e.User.Username)
		}
	}
}

func wantUsage(t *testing.T, r framework.Result, want string) {
	t.Helper()
	line := strings.TrimSpace(r.Stderr)
	if r.Code != 2 {
		t.Fatalf("exit %d, want 2; stdout: %.300s; stderr: %s", r.Code, r.Stdout, line)
	}
	if strings.Count(line, "\n") != 0 || !strings.HasPrefix(line, "error: ") || !strings.Contains(line, want) {
		t.Fatalf("want one error line with %q, got: %s", want, r.Stderr)
	}
}

func hasRequest(events []framework.AuditEvent, prefix string) bool {
	for _, e := range events {
		if strings.HasPrefix(e.RequestURI, prefix) && strings.HasPrefix(e.UserAgent, "kubectl-watchrv/") {
			return true
		}
	}
	return false
}

// The kubeconfig context's namespace is read only where a request uses it
// (adversary try 19): a context whose namespace is no namespace name must
// not refuse -A, nor a cluster-scoped resource, in any command, since
// neither reads it; the refusal's own fix says "-A reads all namespaces".
func TestContextNamespaceIsReadOnlyWhereUsed(t *testing.T) {
	a := shared.APIServers[0]
	for _, bad := range []string{"../../../api/v1/namespaces/kube-system/secrets", "ns\x1b[2J", "UPPER"} {
		kc := contextNamespaceKubeconfig(t, a, bad)
		for label, args := range map[string][]string{
			"list -A":                          {"list", "configmaps", "-A", "--rv-only"},
			"list namespaces":                  {"list", "namespaces", "--rv-only"},
			"watch -A":                         {"watch", "configmaps", "-A", "--rv", "0", "--max-events", "1", "--timeout", "10s"},
			"probe -A":                         {"probe", "configmaps", "-A"},
			"probe namespaces":                 {"probe", "namespaces"},
			"streaming -A":                     {"streaming", "configmaps", "-A"},
			"explain-error --check namespaces": {"explain-error", "--check", "--resource", "namespaces", "too old resource version: 1 (2)"},
		} {
			t.Run(fmt.Sprintf("%q/%s", bad, label), func(t *testing.T) {
				r := framework.Run(t, kc, time.Minute, args...)
				if strings.Contains(r.Stderr, "is not a namespace name") {
					t.Fatalf("refused for the context's namespace, which %s does not read: exit %d: %s", label, r.Code, r.Stderr)
				}
				if r.Code != 0 {
					t.Fatalf("exit %d: %s", r.Code, r.Stderr)
				}
			})
		}
		// Where the namespace is read, it is still refused.
		wantUsage(t, framework.Run(t, kc, time.Minute, "list", "configmaps"), "the namespace of the kubeconfig's context")
	}
}

// contextNamespaceKubeconfig is a kubeconfig of API server a whose
// context's namespace is ns.
func contextNamespaceKubeconfig(t *testing.T, a *framework.APIServer, ns string) string {
	t.Helper()
	kc := filepath.Join(t.TempDir(), "ctxns.kubeconfig")
	if err := os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q, certificate-authority: %q}
users:
- name: u
  user: {token: %q}
contexts:
- name: c
  context: {cluster: c, user: u, namespace: %q}
current-context: c
`, a.URL, a.CAFile, framework.AdminToken, ns)), 0o600); err != nil {
		t.Fatal(err)
	}
	return kc
}
