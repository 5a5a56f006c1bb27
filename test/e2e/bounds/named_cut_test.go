//go:build e2e

package bounds

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// raiseRequestTimeout is a fix that gives a request more time by
// --request-timeout.
var raiseRequestTimeout = []string{"raise --request-timeout", "give a --request-timeout", "--request-timeout to wait longer"}

func suggestsRequestTimeout(s string) bool {
	for _, f := range raiseRequestTimeout {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// requestTimeout is above every bound of the plugin's own or of net/http
// that a request to a server that says nothing meets first (the 10 s TLS
// handshake, version's 5 s): the flag is not what ends these runs.
const requestTimeout = 14 * time.Second

// User try 22 #4: a bound that ended a request is named as the bound that
// did, and a fix that gives it more time is one that does. A server that
// takes the connection and never answers TLS is cut by net/http's 10 s
// TLS handshake bound whatever --request-timeout says: every command said
// so as "raise --request-timeout" (discovery's "net/http: TLS handshake
// timeout ... or raise --request-timeout"). Every command, and each row of
// the per-server views, with --request-timeout above that bound: the run
// ends at the handshake bound, names it, and suggests no --request-timeout.
func TestACutNamesTheBoundThatCutIt(t *testing.T) {
	silent := framework.SilentServers(t, 1)[0]
	kc := filepath.Join(t.TempDir(), "silent.kubeconfig")
	if err := os.WriteFile(kc, []byte(fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://%s\", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: x}\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: default}\ncurrent-context: c\n", silent)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"version"}, {"list", "cm"}, {"list", "cm", "--rv-only"}, {"watch", "cm", "--rv", "list"},
		{"probe", "cm"}, {"probe", "--all"}, {"streaming", "cm"}, {"top", "--once"},
		{"explain-error", "--check", "too old resource version: 1 (2)"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := framework.Run(t, kc, time.Minute, append(args, "--request-timeout", requestTimeout.String())...)
			out := r.Stdout + r.Stderr
			if r.Code != 4 || !strings.Contains(out, "no connection within 10s, the TLS handshake bound") {
				t.Errorf("exit %d: want 4 and the cut named as the TLS handshake bound's:\n%s", r.Code, out)
			}
			if r.Duration >= requestTimeout {
				t.Errorf("ended after %s: the handshake bound (10 s) is what ends it", r.Duration.Round(100*time.Millisecond))
			}
			if suggestsRequestTimeout(out) {
				t.Errorf("suggests a --request-timeout, which does not change the bound that cut it:\n%s", out)
			}
		})
	}
}

// The per-server views: a silent server among --endpoints is a row whose
// error names the bound that cut it, and whose hint (the row's, top's
// per-server fix) suggests no --request-timeout it would not follow.
func TestAServerRowNamesTheBoundThatCutIt(t *testing.T) {
	good := framework.StartTLSScriptServer(nil)
	t.Cleanup(good.Close)
	kc, err := good.Kubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gu, err := url.Parse(good.URL())
	if err != nil {
		t.Fatal(err)
	}
	silent := framework.SilentServers(t, 1)[0]
	eps := silent + "," + gu.Host
	for _, args := range [][]string{
		{"list", "cm", "--endpoints", eps}, {"probe", "cm", "--endpoints", eps},
		{"top", "--once", "--endpoints", eps},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			t.Parallel()
			r := framework.Run(t, kc, 2*time.Minute, append(args, "--request-timeout", requestTimeout.String(), "-o", "json")...)
			var view struct {
				Servers []struct {
					Endpoint string `json:"endpoint"`
					Error    string `json:"error"`
					Hint     string `json:"hint"`
				} `json:"servers"`
			}
			_ = json.Unmarshal([]byte(r.Stdout), &view)
			out := r.Stderr
			for _, s := range view.Servers {
				if s.Endpoint == silent {
					out += "\n" + s.Error + "\n" + s.Hint
				}
			}
			if !strings.Contains(out, "TLS handshake bound") {
				t.Errorf("exit %d: the silent server's cut is not named as the TLS handshake bound's:\n%s\n%s", r.Code, r.Stdout, r.Stderr)
			}
			if suggestsRequestTimeout(out) || strings.Contains(out, "within the request timeout") {
				t.Errorf("the silent server's row names the request timeout, which did not cut it:\n%s", out)
			}
		})
	}
}

// version's own bound (5 s) is the bound of /version only when no
// --request-timeout is given, and is named so; a --request-timeout given
// is followed, above it too (user try 22 #4: cut at 5 s with
// --request-timeout 8s, "the request's time bound ...: raise
// --request-timeout").
func TestVersionFollowsTheRequestTimeout(t *testing.T) {
	_, kc := framework.ServeScript(t, map[string]framework.ScriptAnswer{"/version": {Hang: true}})
	r := framework.Run(t, kc, time.Minute, "version", "--request-timeout", "8s")
	if r.Code != 4 || r.Duration < 8*time.Second || !strings.Contains(r.Stderr, "no answer within 8s, the request's time bound") {
		t.Errorf("exit %d after %s: want 4 after the 8 s given, named:\n%s", r.Code, r.Duration.Round(100*time.Millisecond), r.Stderr)
	}
	r = framework.Run(t, kc, time.Minute, "version")
	if r.Code != 4 || r.Duration > 8*time.Second || !strings.Contains(r.Stderr, "no answer within 5s, version's own bound, which a --request-timeout replaces") {
		t.Errorf("exit %d after %s: want 4 after version's own 5 s, named:\n%s", r.Code, r.Duration.Round(100*time.Millisecond), r.Stderr)
	}
}
