//go:build e2e

package bounds

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// netHTTPWords are net/http's (and its HTTP/2 client's) words for an
// answer it refuses: none may reach any output (adversary try 19 #3).
var netHTTPWords = []string{"!the server failed the request", "!a Status without a code", "!net/http", "!malformed", "!transport connection broken", "!MIME", "!stream error", "!pseudo header", "!invalid header field", "!invalid byte in chunk length", "!chunked line ends", "!multiple Content-Length"}

// refusedWords: what every single-target command's one error line says
// of an answer net/http refuses: the server, the request, what was wrong
// in the plugin's words, and the fix of every answer no API server sends.
func refusedWords(server, part, what string) []string {
	return append([]string{"the API server at " + server + " answered ", "with " + part + " that cannot be read: ", what,
		"no API server sends it; check that the kubeconfig's server is the API server and what any proxy in front of it answers"}, netHTTPWords...)
}

// refusedRequests are the requests an answer is broken on, with the
// commands that send each (paths of a ScriptServer: ScriptDefaults).
var refusedRequests = []struct {
	on       string
	paths    []string
	commands [][]string
}{
	{"discovery", []string{"/api"}, [][]string{{"list", "cm"}, {"watch", "cm", "--timeout", "3s"}, {"probe", "--all"}, {"streaming", "--all"}}},
	{"list", []string{"/api/v1/namespaces/default/configmaps", "/api/v1/configmaps"}, [][]string{{"list", "cm"}, {"probe", "cm"}, {"watch", "cm", "--rv", "list", "--timeout", "3s"}, {"probe", "--all"}}},
	{"watch", []string{"/api/v1/namespaces/default/configmaps?watch", "/api/v1/configmaps?watch"}, [][]string{{"watch", "cm", "--rv", "5", "--timeout", "3s"}, {"watch", "cm", "--rv", "5", "--follow", "--timeout", "3s"}, {"streaming", "cm"}, {"streaming", "--all"}}},
	{"version", []string{"/version"}, [][]string{{"version"}}},
	{"metrics", []string{"/metrics"}, [][]string{{"top", "--once", "--interval", "1s"}}},
}

// TestAnAnswerNetHTTPRefusesIsNamed (adversary try 19 #3): an answer whose
// head net/http refuses (a header line with ESC, NUL or a byte outside
// ASCII in its name, a status code that is no number, a Content-Length
// that is none) or whose chunked body's framing is broken, on each
// request of every command, over HTTP/1, through a proxy-url, and over
// HTTP/2: the one error line names the server and the request, says what
// was wrong in the plugin's words with the fix, exit 1 (12 for a run over
// several resources whose others answered); never net/http's words.
func TestAnAnswerNetHTTPRefusesIsNamed(t *testing.T) {
	const within = 30 * time.Second
	heads := []struct {
		name, head, body, part, what string
	}{
		{"esc", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Evil: a\x1b[31mRED\x1b[0m\u009b31m\a", "{}", "a head", "a header line whose value holds a control character or NUL (X-Evil)"},
		{"nul", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Evil: a\x00b", "{}", "a head", "a header line whose value holds a control character or NUL (X-Evil)"},
		{"name-outside-ascii", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-\xe9vil: a", "{}", "a head", "a header line whose name holds a byte no header name may"},
		{"status-2x0", "HTTP/1.1 2x0 OK", "{}", "a head", `a status code that is not a number of three digits: "2x0"`},
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2x", "{}", "a head", `a Content-Length that is not a number: "2x"`},
		{"status-line", "HTTP/1.1", "{}", "a head", `a status line that is not HTTP's: "HTTP/1.1"`},
		{"http-version", "HTTQ/1.1 200 OK", "{}", "a head", `a status line of no HTTP version: "HTTQ/1.1"`},
		{"folded-first-line", "HTTP/1.1 200 OK\r\n Content-Type: application/json", "{}", "a head", "a first header line that starts with a space (a folded line)"},
		{"two-content-lengths", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3", "{}", "a head", "Content-Length headers that differ"},
		{"transfer-encoding", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip", "{}", "a head", `a Transfer-Encoding other than chunked: "gzip"`},
		// Three digits net/http takes, and no HTTP status (adversary try
		// 20 #15: 000 was "a Status without a code", 999 "the server
		// failed the request").
		{"status-000", "HTTP/1.1 000 X\r\nContent-Type: application/json", "{}", "a head", "a status code 000, which is no HTTP status (HTTP's are 100 to 599)"},
		{"status-600", "HTTP/1.1 600 X\r\nContent-Type: application/json", "{}", "a head", "a status code 600, which is no HTTP status (HTTP's are 100 to 599)"},
		{"status-999", "HTTP/1.1 999 X\r\nContent-Type: application/json", "{}", "a head", "a status code 999, which is no HTTP status (HTTP's are 100 to 599)"},
		{"chunked-framing", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked", "5\r\n{\"kin\r\nzz\r\n{}\r\n", "a body", "its chunked framing is broken (a chunk length that is not hexadecimal)"},
	}
	for _, h := range heads {
		for _, req := range refusedRequests {
			script := map[string]framework.ScriptAnswer{}
			for _, p := range req.paths {
				script[p] = framework.ScriptAnswer{Head: h.head, Body: h.body}
			}
			s, kc := framework.ServeScript(t, script)
			for _, args := range req.commands {
				want := refusedWords(s.URL(), h.part, h.what)
				code := 1
				if args[len(args)-1] == "--all" && req.on != "discovery" {
					// A run over several resources: the line names the
					// first failed one and its words (each row its own).
					// streaming: deployments' watch is refused (ScriptDefaults),
					// and a refusal is an answer: 12 too (adversary try 31 F3).
					code, want = 12, append([]string{"(configmaps: ", h.what}, netHTTPWords...)
				}
				t.Run(h.name+" on "+req.on+" "+strings.Join(args, " "), func(t *testing.T) {
					r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*within, args...)
					checkRun(t, r, faultCase{framework.Fault("refused-" + h.name), args, code, want, within})
				})
			}
		}
	}

	// A proxy-url that answers a head net/http refuses: the same words.
	for _, h := range heads[:2] {
		proxy, err := framework.StartRawHeadServer(h.head, h.body)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(proxy.Close)
		s, _ := framework.ServeScript(t, nil)
		kc := filepath.Join(t.TempDir(), "proxied.kubeconfig")
		cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: p\n  cluster:\n    server: %s\n    proxy-url: %s\ncontexts:\n- name: p\n  context:\n    cluster: p\n    user: p\n    namespace: default\ncurrent-context: p\nusers:\n- name: p\n  user:\n    token: p-token\n", s.URL(), proxy.URL())
		if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"list", "cm"}, {"version"}, {"watch", "cm", "--rv", "5", "--timeout", "3s"}, {"top", "--once", "--interval", "1s"}} {
			t.Run(h.name+" from the proxy-url "+strings.Join(args, " "), func(t *testing.T) {
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*within, args...)
				checkRun(t, r, faultCase{framework.Fault("refused-proxy-" + h.name), args, 1, refusedWords(s.URL(), h.part, h.what), within})
			})
		}
	}

	// HTTP/2 (TLS, as client-go dials): the client's own refusals.
	for _, f := range []struct {
		fault framework.H2Fault
		what  string
	}{
		{framework.H2HeaderControl, `a header value that holds a control character or NUL ("x-evil")`},
		{framework.H2NoStatus, "an HTTP/2 head without a :status"},
		{framework.H2StatusNotNumber, "an HTTP/2 :status that is not a number"},
		{framework.H2DataBeforeHeaders, "its HTTP/2 stream broke the protocol (PROTOCOL_ERROR)"},
	} {
		for _, c := range []struct {
			on   string
			args []string
		}{
			{"list", []string{"list", "cm"}}, {"list", []string{"probe", "cm"}},
			{"watch", []string{"watch", "cm", "--rv", "5", "--timeout", "3s"}}, {"watch", []string{"watch", "cm", "--rv", "5", "--follow", "--timeout", "3s"}},
			{"version", []string{"version"}}, {"metrics", []string{"top", "--once", "--interval", "1s"}},
		} {
			t.Run(string(f.fault)+" on "+c.on+" "+strings.Join(c.args, " "), func(t *testing.T) {
				s, err := framework.StartH2FaultServer(f.fault, c.on)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				kc, err := s.Kubeconfig(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				r := framework.RunUnderMemoryLimit(t, memoryLimit, kc, 2*within, append(c.args, "--request-timeout", "5s")...)
				checkRun(t, r, faultCase{framework.Fault("h2-" + string(f.fault)), c.args, 1, refusedWords(s.URL, "a head", f.what), within})
			})
		}
	}
}
