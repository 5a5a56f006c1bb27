//go:build e2e

package bounds

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A kubeconfig that loaded, from the path given, but whose value of a
// field client-go refuses gets the fix that names that field, in every
// command, exit 2, one line; never the advice for a kubeconfig that did
// not load ("pass --kubeconfig, set KUBECONFIG, or use --server and
// --token": adversary try 22 F10, for --as-group without --as, an exec
// apiVersion client-go does not know, an empty tokenFile). Every problem
// diagnose.KubeconfigProblemOf reads is here, made as a user makes it.
func TestKubeconfigFieldClientGoRefusesIsNamedWithItsFix(t *testing.T) {
	srv := framework.StartTLSScriptServer(nil)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	pem := filepath.Join(dir, "some.pem") // opened by client-go's validation, never parsed
	if err := os.WriteFile(pem, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	exec := func(more map[string]any) map[string]any {
		e := map[string]any{"apiVersion": "client.authentication.k8s.io/v1", "command": "/bin/true", "interactiveMode": "Never"}
		for k, v := range more {
			if v == nil {
				delete(e, k)
				continue
			}
			e[k] = v
		}
		return map[string]any{"exec": e}
	}
	token := map[string]any{"token": "t"}
	cluster := map[string]any{"server": srv.URL(), "insecure-skip-tls-verify": true}
	const impersonation = "need a user to impersonate: give --as (or as in the kubeconfig's user)"
	cases := []struct {
		name    string
		cluster map[string]any // nil: cluster
		user    map[string]any
		args    []string
		want    string
	}{
		{name: "--as-group without --as", user: token, args: []string{"--as-group", "g"}, want: impersonation},
		{name: "--as-uid without --as", user: token, args: []string{"--as-uid", "u"}, want: impersonation},
		{name: "as-groups without as", user: map[string]any{"token": "t", "as-groups": []string{"g"}}, want: impersonation},
		{name: "exec apiVersion client-go does not read", user: exec(map[string]any{"apiVersion": "client.authentication.k8s.io/v7"}), want: "exec.apiVersion of the kubeconfig's user must be client.authentication.k8s.io/v1"},
		{name: "exec without apiVersion", user: exec(map[string]any{"apiVersion": nil}), want: "set exec.apiVersion of the kubeconfig's user"},
		{name: "exec without command", user: exec(map[string]any{"command": nil}), want: "set exec.command of the kubeconfig's user"},
		{name: "exec interactiveMode unknown", user: exec(map[string]any{"interactiveMode": "Sometimes"}), want: "set exec.interactiveMode of the kubeconfig's user"},
		{name: "exec without interactiveMode", user: exec(map[string]any{"interactiveMode": nil}), want: "set exec.interactiveMode of the kubeconfig's user"},
		{name: "exec env without a name", user: exec(map[string]any{"env": []map[string]string{{"name": "", "value": "v"}}}), want: "give every entry of exec.env of the kubeconfig's user a name"},
		{name: "auth-provider and exec", user: map[string]any{"exec": exec(nil)["exec"], "auth-provider": map[string]any{"name": "oidc"}}, want: "keep one of auth-provider and exec"},
		{name: "token and a password", user: map[string]any{"token": "t", "username": "a", "password": "b"}, want: "keep one of them, in the kubeconfig's user"},
		{name: "client-certificate without a key", user: map[string]any{"client-certificate": pem}, want: "give client-key (or client-key-data) beside client-certificate"},
		{name: "client-certificate and its data", user: map[string]any{"client-certificate": pem, "client-certificate-data": "eA==", "client-key": pem}, want: "keep one of client-certificate and client-certificate-data"},
		{name: "client-key and its data", user: map[string]any{"client-certificate": pem, "client-key": pem, "client-key-data": "eA=="}, want: "keep one of client-key and client-key-data"},
		{name: "certificate-authority and its data", cluster: map[string]any{"server": srv.URL(), "certificate-authority": pem, "certificate-authority-data": "eA=="}, user: token, want: "keep one of certificate-authority and certificate-authority-data"},
		{name: "proxy-url of another scheme", cluster: map[string]any{"server": srv.URL(), "insecure-skip-tls-verify": true, "proxy-url": "ftp://127.0.0.1:9"}, user: token, want: "fix proxy-url of the kubeconfig's cluster"},
		{name: "tokenFile empty", user: map[string]any{"tokenFile": "/dev/null"}, want: `"/dev/null": the tokenFile holds no token`},
	}
	commands := append(slices.Clone(credentialCommands), []string{"top", "--once", "--interval", "1s"})
	for _, c := range cases {
		cl := cluster
		if c.cluster != nil {
			cl = c.cluster
		}
		kc := writeJSONKubeconfig(t, map[string]any{
			"apiVersion": "v1", "kind": "Config", "current-context": "ctx",
			"clusters": []map[string]any{{"name": "c", "cluster": cl}},
			"users":    []map[string]any{{"name": "u", "user": c.user}},
			"contexts": []map[string]any{{"name": "ctx", "context": map[string]any{"cluster": "c", "user": "u", "namespace": "default"}}},
		})
		for _, args := range commands {
			t.Run(c.name+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				r := framework.RunToExit(t, memoryLimit, t.TempDir(), kc, time.Minute, append(args, c.args...)...)
				line := strings.TrimSpace(r.Stderr)
				t.Logf("exit %d: %.400q", r.Code, line)
				if r.Code != 2 || strings.Count(line, "\n") != 0 || !strings.Contains(line, "cannot use the kubeconfig: ") {
					t.Fatalf("want exit 2 and one line on the kubeconfig, got exit %d: %s", r.Code, r.Stderr)
				}
				if !strings.Contains(line, c.want) {
					t.Fatalf("the fix does not name the field (%q): %s", c.want, line)
				}
				if strings.Contains(line, "pass --kubeconfig") || strings.Contains(line, "set KUBECONFIG") {
					t.Fatalf("a kubeconfig that loaded is told to load another: %s", line)
				}
			})
		}
	}
}
