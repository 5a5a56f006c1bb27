//go:build e2e

package security

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/watchrv/kubectl-watchrv/pkg/render"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// hostileRun is one command of the plugin fed hostile input.
type hostileRun struct {
	name       string
	kubeconfig string
	stdin      []byte
	args       []string
	// quiet: the run prints none of the hostile fields (the reason says
	// why); the rest must show at least one of them, escaped, so that the
	// test cannot pass by printing nothing.
	quiet string
}

// Issue 25, class A: no byte from outside drives a terminal. Every command
// is run on hostile input in every field it prints (object names,
// namespaces, UIDs, labels, Status messages, /version, /metrics labels,
// EndpointSlice errors, kubeconfig names and URLs, log lines, audit-log
// fields) and neither stdout nor stderr (not terminals here) may hold a
// control byte: C0 but \n and \t, DEL, C1, invalid UTF-8. The hostile
// input must show up escaped (\x1b, \u009b), so every field was printed
// and defanged, not dropped, and each byte one way everywhere (\a, never
// \x07 beside it). A real kube-apiserver carries what it can:
// its Status messages and audit log (an object name with ESC in a path,
// C1 controls in a user agent and an impersonated user); the hostile fake
// server (framework.HostileServer) the rest, which no real server stores.
func TestNoControlByteReachesATerminal(t *testing.T) {
	fake, err := framework.StartHostileServer()
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fakeKC := write("fake.kubeconfig", hostileKubeconfig(fake.URL, "default"))
	namesKC := write("names.kubeconfig", hostileKubeconfig(fake.URL, "default"+framework.Hostile))
	urlKC := write("url.kubeconfig", hostileKubeconfig("http://127.0.0.1:1/"+framework.Hostile, "default"))
	logFile := write("controller.log", hostileLog())
	auditFile := write("audit.log", hostileAudit())
	realAudit := hostileRequestsToTheRealServer(t)

	real := shared.Kubeconfig
	runs := []hostileRun{
		{name: "list", kubeconfig: fakeKC, args: []string{"list", "cm"}},
		{name: "list -o wide -A --verbose", kubeconfig: fakeKC, args: []string{"list", "cm", "-o", "wide", "-A", "--verbose"}},
		{name: "list --rv-only", kubeconfig: fakeKC, args: []string{"list", "endpoints", "--rv-only"}},
		{name: "list, RVs that are no number", kubeconfig: fakeKC, args: []string{"list", "endpoints"}},
		{name: "list -o json", kubeconfig: fakeKC, args: []string{"list", "cm", "-o", "json"}, quiet: "JSON escapes as JSON does (\\u001b)"},
		{name: "watch -o yaml", kubeconfig: fakeKC, args: []string{"watch", "cm", "--rv", "41", "--timeout", "3s", "-o", "yaml"}, quiet: "YAML escapes as YAML does (\\e)"},
		{name: "clients -o yaml", args: []string{"clients", "-f", "AUDIT", "-o", "yaml"}, quiet: "YAML escapes as YAML does (\\e)"},
		{name: "list --servers", kubeconfig: fakeKC, args: []string{"list", "cm", "--servers"}},
		{name: "list -o name", kubeconfig: fakeKC, args: []string{"list", "cm", "-o", "name"}},
		{name: "list -o jsonpath", kubeconfig: fakeKC, args: []string{"list", "cm", "-o", "jsonpath={.server.version}"}},
		{name: "watch", kubeconfig: fakeKC, args: []string{"watch", "cm", "--rv", "41", "--timeout", "3s"}},
		{name: "watch --verbose -o wide", kubeconfig: fakeKC, args: []string{"watch", "cm", "--rv", "41", "--timeout", "3s", "--verbose", "-o", "wide"}},
		{name: "watch expired", kubeconfig: fakeKC, args: []string{"watch", "cm", "--rv", "10", "--timeout", "3s"}},
		{name: "watch --follow", kubeconfig: fakeKC, args: []string{"watch", "cm", "--rv", "10", "--follow", "--timeout", "4s"}},
		{name: "watch --rv list", kubeconfig: fakeKC, args: []string{"watch", "endpoints", "--rv", "list", "--timeout", "3s"}},
		{name: "watch --send-initial-events", kubeconfig: fakeKC, args: []string{"watch", "cm", "--send-initial-events", "--timeout", "3s"}},
		{name: "watch -o name", kubeconfig: fakeKC, args: []string{"watch", "cm", "--rv", "41", "--timeout", "3s", "-o", "name"}},
		{name: "probe", kubeconfig: fakeKC, args: []string{"probe", "cm", "--probe-wait", "300ms", "--verbose"}},
		{name: "probe --future", kubeconfig: fakeKC, args: []string{"probe", "cm", "--probe-wait", "300ms", "--future"}, quiet: "numbers and verdicts only"},
		{name: "probe --all", kubeconfig: fakeKC, args: []string{"probe", "--all", "--probe-wait", "300ms"}, quiet: "numbers only: one watch per resource, whose 410 gives the bound"},
		{name: "probe --servers", kubeconfig: fakeKC, args: []string{"probe", "cm", "--servers", "--probe-wait", "300ms"}},
		{name: "probe --metrics", kubeconfig: fakeKC, args: []string{"probe", "cm", "--metrics", "--probe-wait", "300ms"}, quiet: "the probed resource's series only: numbers"},
		{name: "probe --interval", kubeconfig: fakeKC, args: []string{"probe", "cm", "--interval", "1s", "--duration", "2s", "--probe-wait", "300ms"}},
		{name: "streaming", kubeconfig: fakeKC, args: []string{"streaming", "cm"}, quiet: "counts, not the objects"},
		{name: "streaming, RVs that are no number", kubeconfig: fakeKC, args: []string{"streaming", "endpoints"}},
		{name: "streaming --all", kubeconfig: fakeKC, args: []string{"streaming", "--all"}},
		{name: "explain-error --check", kubeconfig: fakeKC, args: []string{"explain-error", "--check", "too old resource version: 10 (40)"}},
		{name: "version", kubeconfig: fakeKC, args: []string{"version"}},
		{name: "kubeconfig namespace", kubeconfig: namesKC, args: []string{"list", "cm"}},
		{name: "kubeconfig context names", kubeconfig: namesKC, args: []string{"list", "cm", "--context", "nosuch"}},
		{name: "kubeconfig server URL", kubeconfig: urlKC, args: []string{"version"}},
		{name: "-n", kubeconfig: fakeKC, args: []string{"list", "cm", "-n", "a" + framework.HostileRaw}},
		{name: "a NAME", kubeconfig: fakeKC, args: []string{"watch", "cm", "a" + framework.HostileRaw}},
		{name: "an unknown command", args: []string{"li" + framework.HostileRaw}},
		{name: "an unknown flag", args: []string{"list", "--x" + framework.HostileRaw}},
		{name: "-o", args: []string{"version", "--client", "-o", framework.HostileRaw}},
		{name: "explain-error MESSAGE", args: []string{"explain-error", "too old resource version: 1 (2) " + framework.HostileRaw}, quiet: "the verdict quotes the error it found, not the rest"},
		{name: "explain-error MESSAGE unrecognized", args: []string{"explain-error", framework.HostileRaw}, quiet: "nothing recognized: nothing quoted"},
		{name: "explain-error -f FILE", args: []string{"explain-error", "-f", logFile}},
		{name: "explain-error -f -", stdin: []byte(hostileLog()), args: []string{"explain-error", "-f", "-"}},
		{name: "explain-error stdin", stdin: []byte("too old resource version: 1 (2)\n" + framework.HostileRaw + "\n"), args: []string{"explain-error"},
			quiet: "one message: the verdict does not quote the text"},
		{name: "clients", args: []string{"clients", "-f", auditFile, "--timeline", "5"}},
		{name: "clients --by-source-ip", args: []string{"clients", "-f", auditFile, "--by-source-ip"}},
		{name: "clients, the real server's audit log", args: []string{"clients", "-f", realAudit}},
		{name: "explain-error -f, the real server's audit log", args: []string{"explain-error", "-f", realAudit},
			quiet: "the audit log holds no resourceVersion error"},
		// The real server's Status messages quote what it was sent.
		{name: "list -l, real", kubeconfig: real, args: []string{"list", "cm", "-l", "app=" + framework.Hostile}},
		{name: "watch --field-selector, real", kubeconfig: real, args: []string{"watch", "cm", "--field-selector", "x" + framework.Hostile + "=y", "--timeout", "3s"}},
	}
	var wg sync.WaitGroup
	results := make([]framework.Result, len(runs))
	sem := make(chan struct{}, 4)
	for i, r := range runs {
		for j, a := range r.args {
			if a == "AUDIT" {
				runs[i].args[j] = auditFile
			}
		}
		r = runs[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = framework.RunInput(t, r.kubeconfig, r.stdin, 2*time.Minute, r.args...)
		}()
	}
	wg.Wait()
	for i, r := range runs {
		res := results[i]
		for stream, out := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
			if at := render.ControlAt([]byte(out)); at >= 0 {
				t.Errorf("%s: a control byte reached %s at %d (exit %d): %q", r.name, stream, at, res.Code, around(out, at))
			}
		}
		both := res.Stdout + res.Stderr
		shown := strings.Contains(both, `\x1b`) || strings.Contains(both, `\u009b`)
		// One form per byte on every path (text.ByteEscape, Go's as %q
		// writes them): a BEL is \a and a CR \r in a row, a note, a
		// quoted value and a suggested command alike (adversary try 20
		// #15: \x07 in a row, \a in the breach line under it).
		for _, other := range []string{`\x07`, `\x0d`, `\x08`} {
			if strings.Contains(both, other) {
				t.Errorf("%s: a byte shown as %s, where every other path shows it in Go's escapes (\\a, \\r, \\b):\n%s", r.name, other, both)
			}
		}
		switch {
		case r.quiet == "" && !shown:
			t.Errorf("%s: no hostile field was shown (exit %d): the test proves nothing here:\n%s\n%s", r.name, res.Code, res.Stdout, res.Stderr)
		case r.quiet != "" && res.Code == 70:
			t.Errorf("%s: internal error: %s", r.name, res.Stderr)
		}
		t.Logf("%s: exit %d, %d+%d bytes, hostile input shown escaped: %v", r.name, res.Code, len(res.Stdout), len(res.Stderr), shown)
	}
}

func around(s string, i int) string {
	return s[max(0, i-60):min(len(s), i+20)]
}

// hostileKubeconfig points at server with contexts, a cluster and a user
// named with Hostile (the current context is a plain "c"), and namespace as
// the context's.
func hostileKubeconfig(server, namespace string) string {
	q := func(s string) string { return fmt.Sprintf("%q", s) } // YAML double quotes take Go's escapes
	h := framework.Hostile
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %s}
- name: %s
  cluster: {server: %s}
users:
- name: u
  user: {token: t}
contexts:
- name: c
  context: {cluster: c, user: u, namespace: %s}
- name: %s
  context: {cluster: c, user: u}
current-context: c
`, q(server), q("cluster"+h), q(server), q(namespace), q("ctx"+h))
}

// hostileLog is a controller's log whose resourceVersion errors carry
// Hostile, and raw bytes that are not UTF-8.
func hostileLog() string {
	h := framework.HostileRaw
	return strings.Join([]string{
		"I1201 10:00:00.000000       1 reflector.go:376] Listing and watching *v1.ConfigMap " + h,
		"W1201 10:00:01.000000       1 reflector.go:569] watch of *v1.ConfigMap ended with: too old resource version: 214 (257) " + h,
		"E1201 10:00:02.000000       1 reflector.go:150] failed to list *v1.Pod: Timeout: Too large resource version: 9000, current: 8990 " + h,
		h + " The resourceVersion for the provided watch is too old.",
	}, "\n") + "\n"
}

// hostileAudit is an audit log whose every field a report may print holds
// Hostile: the path, the user, the user agent, the source IP, the
// resource, the namespace, the verb, the audit ID; enough requests that
// every pattern (polling, relist loop, stale reconnect, herd) shows its
// evidence. One line holds bytes that are not UTF-8 inside a string.
func hostileAudit() string {
	h := strings.ReplaceAll(framework.Hostile, "\a", `\u0007`)
	h = strings.ReplaceAll(strings.ReplaceAll(h, "\x1b", `\u001b`), "\r", `\r`)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	n := 0
	event := func(at time.Duration, took time.Duration, user, ua, ip, verb, uri, resource string, code int) {
		n++
		recv, done := t0.Add(at), t0.Add(at+took)
		fmt.Fprintf(&b, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"id-%d%s","stage":"ResponseComplete","requestURI":"%s","verb":"%s","user":{"username":"%s"},"sourceIPs":["%s"],"userAgent":"%s","objectRef":{"resource":"%s","namespace":"default%s","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":%d},"requestReceivedTimestamp":"%s","stageTimestamp":"%s"}`+"\n",
			n, h, uri, verb, user, ip, ua, resource, h, code, recv.Format(time.RFC3339Nano), done.Format(time.RFC3339Nano))
	}
	res := "configmaps" + h
	list := "/api/v1/namespaces/default/configmaps%1b%5b2J?limit=500"
	watch := "/api/v1/namespaces/default/configmaps%1b%5b2J?resourceVersion=5&watch=true"
	// A poller: lists every 10 s, never watches.
	for i := 0; i < 8; i++ {
		event(time.Duration(i)*10*time.Second, 20*time.Millisecond, "poller"+h, "poll"+h, "10.0.0.1"+h, "list", list, res, 200)
	}
	// Three informers whose watches end at once and relist: a relist loop
	// each, stale reconnects, and a herd together.
	for c := 0; c < 3; c++ {
		for i := 0; i < 5; i++ {
			at := time.Duration(100+i*5) * time.Second
			who := fmt.Sprintf("informer-%d%s", c, h)
			event(at, 100*time.Millisecond, who, "agent"+h, fmt.Sprintf("10.0.1.%d%s", c, h), "watch", watch, res, 200)
			event(at+200*time.Millisecond, 30*time.Millisecond, who, "agent"+h, fmt.Sprintf("10.0.1.%d%s", c, h), "list", list, res, 200)
			event(at+300*time.Millisecond, 10*time.Millisecond, who, "agent"+h, fmt.Sprintf("10.0.1.%d%s", c, h), "watch", watch, res, 410)
		}
	}
	event(200*time.Second, time.Millisecond, "admin"+h, "curl"+h, "127.0.0.1", "get"+h, "/healthz"+h, "", 200)
	b.WriteString(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"raw","stage":"ResponseComplete","requestURI":"/api/v1/configmaps","verb":"list","user":{"username":"raw` + "\xff\x9b" + `"},"sourceIPs":["127.0.0.1"],"userAgent":"raw` + "\xff\x9b\xc2" + `","objectRef":{"resource":"configmaps","apiVersion":"v1"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-12-01T10:04:00Z","stageTimestamp":"2026-12-01T10:04:00.1Z"}` + "\n")
	b.WriteString("not an audit event " + framework.HostileRaw + "\n")
	return b.String()
}

// hostileRequestsToTheRealServer sends the real API server requests whose
// audit events carry control bytes (the server refuses ESC in a header,
// so the user agent and the impersonated user carry C1 controls; the
// object name in the path carries ESC), and returns its audit log once it
// holds them.
func hostileRequestsToTheRealServer(t *testing.T) string {
	t.Helper()
	a := shared.APIServers[0]
	ca, err := os.ReadFile(a.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	marker := fmt.Sprintf("%%1b%%5b2Jcm-%d", time.Now().UnixNano())
	for _, h := range []map[string]string{
		{"User-Agent": "anon\u009b2J\u009d0;PWNED\u009c"},
		{"User-Agent": "adm\u009b2J", "Authorization": "Bearer " + framework.AdminToken, "Impersonate-User": "user\u009b2J"},
		{"User-Agent": "admin\u009b2J", "Authorization": "Bearer " + framework.AdminToken},
	} {
		for _, path := range []string{"/api/v1/namespaces/default/configmaps/" + marker, "/api/v1/namespaces/default/%1b%5d0;TITLE%07", "/api/v1/namespaces/default/configmaps?labelSelector=%1b%5b2J"} {
			req, err := http.NewRequest(http.MethodGet, a.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range h {
				req.Header.Set(k, v)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			resp.Body.Close()
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, err := os.ReadFile(a.AuditLog)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(b), marker) >= 3 {
			p := filepath.Join(t.TempDir(), "real-audit.log")
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("the real server's audit log never recorded the hostile requests (%s)", marker)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
