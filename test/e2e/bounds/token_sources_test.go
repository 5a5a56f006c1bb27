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

// Every value sent as a header is checked as client-go will send it, in
// every command, on the real API server: a tokenFile's content is sent
// trimmed (client-go's NewCachedFileTokenSource), so a file that ends with
// a newline or CRLF (echo "$TOKEN" > file) works as it does with kubectl
// (adversary try 22 F1: it was refused, exit 2, "holds a control
// character"); only a control character inside what is sent is refused,
// with the field named; a tokenFile with no token in it is said to be
// that, as client-go says it; a token beside an empty tokenFile is what
// client-go sends. --token and an exec plugin's token are sent as given.
func TestEveryTokenSourceIsCheckedAsClientGoSendsIt(t *testing.T) {
	c := cluster(t)
	a := c.APIServers[0]
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tok := framework.AdminToken
	const (
		inFile  = "the token in tokenFile"
		inToken = "the token (token, or --token)"
		noToken = "the tokenFile holds no token"
	)
	cases := []struct {
		name string
		user map[string]any
		args []string
		code int
		want string // in the one error line (code 2)
	}{
		{name: "token", user: map[string]any{"token": tok}},
		{name: "tokenFile ending with a newline", user: map[string]any{"tokenFile": file("nl", tok+"\n")}},
		{name: "tokenFile ending with CRLF", user: map[string]any{"tokenFile": file("crlf", tok+"\r\n")}},
		{name: "tokenFile with whitespace around", user: map[string]any{"tokenFile": file("around", " \t"+tok+" \n\n")}},
		{name: "tokenFile empty beside a token", user: map[string]any{"token": tok, "tokenFile": file("ws-beside", "\n\n")}},
		{name: "--token", user: map[string]any{"token": "wrong"}, args: []string{"--token", tok}},
		{name: "exec plugin's token", user: map[string]any{"exec": execUser(pluginScript(t, t.TempDir(), cred(tok)))}},
		{name: "tokenFile with ESC inside", user: map[string]any{"tokenFile": file("esc", tok+"\x1b[31m\n")}, code: 2, want: inFile},
		{name: "tokenFile with a newline inside", user: map[string]any{"tokenFile": file("inner-nl", tok+"\nmore\n")}, code: 2, want: inFile},
		{name: "tokenFile empty", user: map[string]any{"tokenFile": file("empty", "")}, code: 2, want: noToken},
		{name: "tokenFile only whitespace", user: map[string]any{"tokenFile": file("ws", "\n \r\n")}, code: 2, want: noToken},
		{name: "token with a newline", user: map[string]any{"token": tok + "\n"}, code: 2, want: inToken},
		{name: "--token with a newline", user: map[string]any{"token": tok}, args: []string{"--token", tok + "\n"}, code: 2, want: inToken},
		{name: "exec plugin's token with a newline", user: map[string]any{"exec": execUser(pluginScript(t, t.TempDir(), cred(tok+`\\n`)))}, code: 2, want: "the token holds a control character"},
	}
	commands := append(slices.Clone(credentialCommands), []string{"top", "--once", "--interval", "1s"})
	for _, tc := range cases {
		kc := writeJSONKubeconfig(t, map[string]any{
			"apiVersion": "v1", "kind": "Config", "current-context": "ctx",
			"clusters": []map[string]any{{"name": "c", "cluster": map[string]any{"server": a.URL, "certificate-authority": a.CAFile}}},
			"users":    []map[string]any{{"name": "u", "user": tc.user}},
			"contexts": []map[string]any{{"name": "ctx", "context": map[string]any{"cluster": "c", "user": "u", "namespace": "default"}}},
		})
		for _, args := range commands {
			t.Run(tc.name+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				r := framework.RunToExit(t, memoryLimit, t.TempDir(), kc, 2*time.Minute, append(args, tc.args...)...)
				line := strings.TrimSpace(r.Stderr)
				t.Logf("exit %d in %s: %.300q", r.Code, r.Duration.Round(time.Millisecond), line)
				if r.Code != tc.code {
					t.Fatalf("exit %d, want %d: %s", r.Code, tc.code, r.Stderr)
				}
				if tc.code == 0 {
					return
				}
				if strings.Count(line, "\n") != 0 || !strings.Contains(line, tc.want) || strings.Contains(line, tok) {
					t.Fatalf("want one error line with %q, and never the token: %s", tc.want, r.Stderr)
				}
			})
		}
	}
}

// execUser is a kubeconfig user's exec block running script.
func execUser(script string) map[string]any {
	return map[string]any{"apiVersion": "client.authentication.k8s.io/v1", "command": script, "interactiveMode": "Never"}
}
