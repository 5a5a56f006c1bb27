//go:build e2e

package bounds

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// TestServersRowsSayTheirOwnRetries (adversary try 28 F3): servers of a
// fan-out are measured at the same time, so each row says its own
// retries and waits (NOTE, and retryWait in JSON; TIME leaves them out and
// says so), and the final error line never appends the run's sum of
// parallel waits, nor one server's first cause, to a line about another
// server: it says the sum as one of waits at the same time. One server
// answers 429 Retry-After 1 twice, then works; one always answers 429.
func TestServersRowsSayTheirOwnRetries(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	busy := framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1",
		Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"slow down","code":429}`}
	// Fresh servers for each run: the sequence's 429s are its first two.
	run := func(t *testing.T, args ...string) (r framework.Result, good, twice string) {
		g, kc := framework.ServeScript(t, nil)
		tw, _ := framework.ServeScriptSequence(t, path, []framework.ScriptAnswer{busy, busy}, nil)
		always, _ := framework.ServeScript(t, map[string]framework.ScriptAnswer{path: busy})
		eps := strings.Join([]string{g.Host(), always.Host(), tw.Host()}, ",")
		return framework.Run(t, kc, 2*time.Minute, append(args, "--endpoints", eps, "--request-timeout", "5s")...), g.Host(), tw.Host()
	}
	for _, args := range [][]string{
		{"probe", "configmaps"},
		{"list", "configmaps"},
	} {
		t.Run(args[0], func(t *testing.T) {
			r, good, twice := run(t, args...)
			row := lineWith(r.Stdout, twice)
			if !strings.Contains(row, "after 2 retries and ") || !strings.Contains(row, "not in TIME") || !strings.Contains(row, "429 Too Many Requests: slow down") {
				t.Errorf("the row of the server sent its reads again twice does not say so: %q\n%s", row, r.Stdout)
			}
			if row := lineWith(r.Stdout, good); strings.Contains(row, "retr") {
				t.Errorf("the row of a server sent nothing again says retries: %q", row)
			}
			if !strings.Contains(r.Stderr, "error: ") || strings.Contains(r.Stderr, "(after ") || strings.Contains(r.Stderr, "first sent again after") ||
				!strings.Contains(r.Stderr, "waited at the same time, not one after another: each row says its own") {
				t.Errorf("the error line says the servers' retries as the run's of one server:\n%s", r.Stderr)
			}
			doc, good, twice := run(t, append(args, "-o", "json")...)
			var v struct {
				Servers []struct {
					Endpoint  string `json:"endpoint"`
					RetryWait *struct {
						Retries int     `json:"retries"`
						Millis  float64 `json:"ms"`
					} `json:"retryWait"`
				} `json:"servers"`
			}
			if err := json.Unmarshal([]byte(doc.Stdout), &v); err != nil {
				t.Fatalf("-o json: %v\n%s", err, doc.Stdout)
			}
			for _, s := range v.Servers {
				if s.Endpoint == twice && (s.RetryWait == nil || s.RetryWait.Retries != 2 || s.RetryWait.Millis < 1900) {
					t.Errorf("-o json: the row of %s has retryWait %+v, want 2 retries and 2 s:\n%s", s.Endpoint, s.RetryWait, doc.Stdout)
				}
				if s.Endpoint == good && s.RetryWait != nil {
					t.Errorf("-o json: the row of %s, sent nothing again, has retryWait %+v", s.Endpoint, s.RetryWait)
				}
			}
		})
	}
}

// TestEveryExplainRowSaysItsOwnRetries (fresh user try 29 F1): explain-
// error --check --endpoints put one endpoint's retry on the kubeconfig
// server's Checked now line, and that endpoint's row said none. Each row
// says its own, and Checked now only the one-server check's reads'.
func TestEveryExplainRowSaysItsOwnRetries(t *testing.T) {
	const path = "/api/v1/namespaces/default/configmaps"
	busy := framework.ScriptAnswer{Head: "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1",
		Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","message":"slow down","code":429}`}
	g, kc := framework.ServeScript(t, nil)
	once, _ := framework.ServeScriptSequence(t, path, []framework.ScriptAnswer{busy}, nil)
	r := framework.Run(t, kc, 2*time.Minute, "explain-error", "--check", "Timeout: Too large resource version: 5000, current: 100", "cm",
		"--endpoints", g.Host()+","+once.Host(), "--request-timeout", "5s")
	out := strings.Join(strings.Fields(r.Stdout), " ")
	if strings.Contains(out, "its reads:") {
		t.Errorf("Checked now says another server's retry as the kubeconfig server's reads':\n%s", r.Stdout)
	}
	if row := lineWith(r.Stdout, once.Host()); !strings.Contains(row, "after 1 retry and ") {
		t.Errorf("the row of the server sent a read again does not say so: %q\n%s", row, r.Stdout)
	}
	if row := lineWith(r.Stdout, g.Host()); strings.Contains(row, "retr") {
		t.Errorf("the row of a server sent nothing again says retries: %q", row)
	}
}
