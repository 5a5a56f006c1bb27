//go:build e2e

package bounds

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// A server that writes past each answer on a kept-alive connection makes
// net/http log "Unsolicited response received on idle HTTP channel"
// through Go's standard logger: raw, timestamped lines that bypass the
// plugin's one writer (fresh user try 20). None reaches stderr, in any
// command.
func TestLibraryLogLinesNeverReachStderr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	answers := framework.ScriptDefaults()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go strayAfterEachAnswer(c, answers)
		}
	}()
	kc := filepath.Join(t.TempDir(), "kc")
	if err := os.WriteFile(kc, []byte(fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: s\n  cluster: {server: \"http://%s\"}\ncontexts:\n- name: s\n  context: {cluster: s, user: u, namespace: default}\ncurrent-context: s\nusers:\n- name: u\n  user: {token: t}\n", ln.Addr())), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"list", "cm"}, {"list", "cm", "--rv-only"}, {"version"}, {"probe", "cm"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := framework.Run(t, kc, time.Minute, args...)
			if strings.Contains(r.Stderr, "Unsolicited response") || strings.Contains(r.Stderr, "idle HTTP channel") {
				t.Errorf("a library's log line reached stderr (exit %d):\n%s", r.Code, r.Stderr)
			}
		})
	}
}

// strayAfterEachAnswer answers each request on c from answers (or 404),
// keeping the connection alive, and writes bytes no answer announced after
// each.
func strayAfterEachAnswer(c net.Conn, answers map[string]framework.ScriptAnswer) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		a, ok := answers[req.URL.Path]
		if req.URL.Query().Get("watch") != "" {
			a, ok = answers[req.URL.Path+"?watch"]
		}
		if !ok {
			a = framework.ScriptAnswer{Code: 404, Type: "application/json", Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`}
		}
		fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s0\r\n\r\n", a.Code, http.StatusText(a.Code), a.Type, len(a.Body), a.Body)
	}
}
