//go:build e2e

package bounds

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A server that is no http:// or https:// URL is the kubeconfig's value
// (or --server's), refused before any request in every command: exit 2,
// one line naming the field and its fix, the value escaped (adversary try
// 23 F8: `Get "ftp://127.0.0.1:18882/api?timeout=32s": unsupported
// protocol scheme "ftp"`, exit 1, no field named; a file:// server was
// client-go's "host must be a URL or a host:port pair"). A host:port
// without a scheme is still a server, as kubectl's: it is reached.
func TestKubeconfigServerOfAnotherSchemeIsRefusedNamingItsField(t *testing.T) {
	// Each run has a server of its own, at HOST in the values.
	const host = "HOST"
	cases := []struct {
		name, server string
		args         []string
		want         string // in the error line ("": the server is reached)
	}{
		{name: "ftp", server: "ftp://" + host, want: `is a URL of scheme "ftp"`},
		{name: "FTP in capitals", server: "FTP://" + host, want: `is a URL of scheme "ftp"`},
		{name: "file", server: "file:///tmp/kubeconfig-server", want: `is a URL of scheme "file"`},
		{name: "unix socket", server: "unix:///run/kube-apiserver.sock", want: `is a URL of scheme "unix"`},
		{name: "ws", server: "ws://" + host, want: `is a URL of scheme "ws"`},
		{name: "javascript", server: "javascript:alert(1)", want: "is no URL an API server is reached at"},
		{name: "a scheme with ESC and OSC", server: "ft\x1b]0;pwned\x07p://" + host, want: "holds a control character (ESC, a newline, ...), which no URL may hold"},
		{name: "a scheme with a C1 CSI", server: "ftp\u009b31m://" + host, want: "holds a control character (ESC, a newline, ...), which no URL may hold"},
		{name: "a scheme with a newline", server: "ftp\n://" + host, want: "holds a control character (ESC, a newline, ...), which no URL may hold"},
		{name: "--server ftp", server: "http://" + host, args: []string{"--server", "ftp://" + host}, want: `the server (given with --server) "ftp://` + host + `" is a URL of scheme "ftp"`},
		{name: "--server with a control character", server: "http://" + host, args: []string{"--server", "gopher\x1b[31m://" + host}, want: "holds a control character"},
		{name: "http without a host", server: "http://", want: "has no host"},
		{name: "http with a path and no host", server: "http:///api", want: "has no host"},
		{name: "a port past 65535", server: "http://127.0.0.1:99999", want: `has port "99999", which is no TCP port`},
		{name: "port 0", server: "https://127.0.0.1:0", want: `has port "0", which is no TCP port`},
		{name: "a host:port without a scheme", server: host},
		{name: "http", server: "http://" + host},
	}
	commands := append(slices.Clone(credentialCommands), []string{"top", "--once", "--interval", "1s"})
	for _, c := range cases {
		for _, args := range commands {
			t.Run(c.name+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				srv, err := framework.StartScriptServer(nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(srv.Close)
				at := func(s string) string { return strings.ReplaceAll(s, host, srv.Host()) }
				kc := writeJSONKubeconfig(t, map[string]any{
					"apiVersion": "v1", "kind": "Config", "current-context": "ctx",
					"clusters": []map[string]any{{"name": "c", "cluster": map[string]any{"server": at(c.server)}}},
					"users":    []map[string]any{{"name": "u", "user": map[string]any{"token": "t"}}},
					"contexts": []map[string]any{{"name": "ctx", "context": map[string]any{"cluster": "c", "user": "u", "namespace": "default"}}},
				})
				flags := slices.Clone(c.args)
				for i := range flags {
					flags[i] = at(flags[i])
				}
				r := framework.RunToExit(t, memoryLimit, t.TempDir(), kc, time.Minute, append(args, flags...)...)
				out := r.Stdout + r.Stderr
				t.Logf("exit %d: %.400q", r.Code, strings.TrimSpace(r.Stderr))
				for i, ch := range out {
					if (ch < 0x20 && ch != '\n' && ch != '\t') || (ch >= 0x7f && ch <= 0x9f) {
						t.Fatalf("a raw control character %U at byte %d: %q", ch, i, out[max(0, i-80):min(len(out), i+80)])
					}
				}
				if strings.Contains(r.Stderr, "unsupported protocol scheme") || strings.Contains(r.Stderr, "host must be a URL") || strings.Contains(r.Stderr, "net/url") {
					t.Fatalf("net/http's or client-go's words reached the line: %s", r.Stderr)
				}
				if c.want == "" {
					if strings.Contains(r.Stderr, "the server (") {
						t.Fatalf("a server kubectl reaches was refused: %s", r.Stderr)
					}
					if len(srv.AskedPaths()) == 0 {
						t.Fatalf("no request reached the server: %s", r.Stderr)
					}
					return
				}
				if n := len(srv.AskedPaths()); n != 0 {
					t.Fatalf("refused, but after requests to %d paths: %v", n, srv.AskedPaths())
				}
				line := strings.TrimSpace(r.Stderr)
				if r.Code != 2 || strings.Count(line, "\n") != 0 {
					t.Fatalf("want exit 2 and one line, got exit %d:\n%s", r.Code, r.Stderr)
				}
				field := `the server (server of cluster "c") "`
				if len(c.args) > 0 {
					field = `the server (given with --server) "`
				}
				if !strings.Contains(line, field) || !strings.Contains(line, at(c.want)) || !strings.Contains(line, "https://") {
					t.Fatalf("want the field (%q), %q and the https:// fix: %s", field, c.want, line)
				}
			})
		}
	}
}
