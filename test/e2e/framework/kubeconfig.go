package framework

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteKubeconfig writes a kubeconfig for API server a with a bearer token.
func (c *Cluster) WriteKubeconfig(name string, a *APIServer, token string) (string, error) {
	if _, err := os.Stat(a.CAFile); err != nil {
		return "", fmt.Errorf("the API server's certificate: %w", err)
	}
	return c.WriteKubeconfigFor(name, a.URL, a.CAFile, token)
}

// WriteKubeconfigFor writes a kubeconfig for any server, CA file and token
// (the fault tests use a wrong CA, a bad token, a closed port).
func (c *Cluster) WriteKubeconfigFor(name, server, caFile, token string) (string, error) {
	return c.WriteKubeconfigVia(name, server, caFile, token, "")
}

// WriteKubeconfigVia is WriteKubeconfigFor with a proxy-url (none when
// empty): client-go then reaches the server through that HTTP CONNECT proxy.
func (c *Cluster) WriteKubeconfigVia(name, server, caFile, token, proxyURL string) (string, error) {
	path := filepath.Join(c.Dir, name)
	proxyLine := ""
	if proxyURL != "" {
		proxyLine = "\n    proxy-url: " + proxyURL
	}
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: watchrv-e2e
  cluster:
    server: %s
    certificate-authority: %s%s
users:
- name: user
  user:
    token: %s
contexts:
- name: watchrv-e2e
  context:
    cluster: watchrv-e2e
    user: user
    namespace: default
current-context: watchrv-e2e
`, server, caFile, proxyLine, token)
	return path, os.WriteFile(path, []byte(content), 0o600)
}
