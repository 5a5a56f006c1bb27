//go:build e2e

package clients

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/watchrv/kubectl-watchrv/pkg/clients"
	"github.com/watchrv/kubectl-watchrv/test/e2e/framework"
)

// Hostile values sent to a real API server, each where a request can put
// it: the path (no credentials needed: an anonymous request is logged
// too), the user agent (raw ESC and BEL, and the C1 CSI U+009B as UTF-8),
// and the user name (a token file's user, as an OIDC claim or a
// certificate's CN can be).
const (
	hostileResource = "\x1b[2Jcm"            // sent as %1b%5b2Jcm
	titleResource   = "\x1b]0;TITLE\a"       // sent as %1b%5d0;TITLE%07
	hostileAgent    = "ua\x1b]0;PWNED\a"     // raw in the header
	c1Agent         = "ua\u009b31mPWNED"     // C1 CSI, UTF-8 in the header
	hostileUser     = "\x1b]0;USER\a\u009bx" // in the token file
	hostileToken    = "watchrv-hostile-token"
	cacheOffAgent   = "watchrv-e2e-cache-off"
)

// TestClientsHostileAuditLogAndCacheOff runs a real kube-apiserver with
// its watch cache off (--watch-cache=false) and sends it requests whose
// path, user agent and user carry terminal controls, some anonymous; the
// hostile resource is polled (a pattern), and three clients of hostile
// user agents relist configmaps at once (a herd). Then clients reads the
// server's audit log:
//
//   - no control character of the log reaches stdout or stderr of the
//     human output (issue 25 item 1: a path cleared the screen, a user
//     agent set the window title): the sanitizer at pkg/render's writer
//     defangs them, with -o json keeping the values as the log has them;
//   - every list of that server read storage, as its own counter
//     (apiserver_storage_list_total) says: --watch-cache=off counts them
//     all as storage lists, and without it they are not known, never
//     "from the watch cache" (issue 25 item 10: "STORAGE LISTS 0").
func TestClientsHostileAuditLogAndCacheOff(t *testing.T) {
	dir := artefactDir(t)
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(fmt.Sprintf("%s,admin,uid-admin,\"system:masters\"\n%s,nobody,uid-nobody\n%s,%s,uid-hostile\n",
		framework.AdminToken, framework.UserToken, hostileToken, hostileUser)), 0o600); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := framework.StartT(t, framework.APIServerOptions{DisableWatchCache: true, ExtraArgs: []string{"--audit-policy-file=" + policy, "--token-auth-file=" + tokens}})
	a := c.APIServers[0]
	cs, _ := framework.Namespace(t, c, "cache-off")
	w := framework.ConfigMapWriter{T: t, Clientset: cs, Namespace: "cache-off"}
	for i := 0; i < 3; i++ {
		w.Create(fmt.Sprint("c", i), nil)
	}
	h := newRawClient(t, a.URL, a.CAFile)

	// The hostile requests.
	for _, r := range []struct{ path, agent, token string }{
		{"/api/v1/namespaces/default/%1b%5b2Jcm", "curl/8.5.0", ""},
		{"/api/v1/namespaces/default/%1b%5d0;TITLE%07", "curl/8.5.0", ""},
		{"/api/v1/namespaces/cache-off/configmaps", hostileAgent, framework.AdminToken},
		{"/api/v1/namespaces/cache-off/configmaps", c1Agent, framework.AdminToken},
		{"/api/v1/namespaces/cache-off/configmaps", "watchrv-e2e-hostile-user", hostileToken},
		{"/api/v1/namespaces/default/%1b%5b2Jcm?watch=true", hostileAgent, hostileToken},
	} {
		t.Logf("GET %s as %q: %s", r.path, r.agent, h.get(r.path, r.agent, r.token))
	}
	// A pattern on the hostile resource: six lists a steady 300 ms apart.
	for i := 0; i < 6; i++ {
		h.get("/api/v1/namespaces/default/%1b%5b2Jcm", c1Agent, framework.AdminToken)
		time.Sleep(300 * time.Millisecond)
	}
	// A herd of the hostile agents: three clients, each a watch that ends
	// then a relist, of configmaps (a relist is a read the server served:
	// the hostile resource does not exist, its reads are refused with 404,
	// and read nothing: fresh user try 23 F2).
	for i := 1; i <= 3; i++ {
		agent := fmt.Sprintf("%s-%d", c1Agent, i)
		h.get("/api/v1/namespaces/cache-off/configmaps?watch=true&timeoutSeconds=1", agent, framework.AdminToken)
		h.get("/api/v1/namespaces/cache-off/configmaps", agent, framework.AdminToken)
	}

	// Lists of every read mode, counted by the server itself.
	before := storageLists(t, h)
	var lists int
	for _, q := range []string{"", "resourceVersion=0", "resourceVersion=1", "resourceVersion=1&resourceVersionMatch=NotOlderThan",
		"limit=2", "resourceVersion=0&limit=1", "labelSelector=x%3Dy"} {
		lists++
		status := h.get("/api/v1/namespaces/cache-off/configmaps?"+q, cacheOffAgent, framework.AdminToken)
		if !strings.HasPrefix(status, "200") {
			t.Fatalf("list ?%s: %s", q, status)
		}
	}
	stored := storageLists(t, h) - before
	time.Sleep(time.Second) // the last ends in the log

	// The human output, with every client, detail and chart row.
	for _, args := range [][]string{
		{"clients", "-f", a.AuditLog, "--top", "1000", "--timeline", "1000"},
		{"clients", "-f", a.AuditLog, "--top", "1000", "--timeline", "1000", "--by-source-ip", "--server-version", "v1.37.2", "--watch-cache", "off"},
		{"clients", "-f", a.AuditLog, "-f", filepath.Join(dir, "\x1b]0;FILE\a.log")},
	} {
		r := framework.Run(t, "", time.Minute, args...)
		for name, out := range map[string]string{"stdout": r.Stdout, "stderr": r.Stderr} {
			if at, bad := firstControl(out); bad != "" {
				t.Errorf("%v: %s has the control %q at byte %d: %q", args[1:], name, bad, at, out[max(0, at-60):min(len(out), at+20)])
			}
		}
		if strings.Contains(args[len(args)-1], "FILE") {
			if r.Code != 2 || !strings.Contains(r.Stderr, "FILE") {
				t.Errorf("a missing hostile file name: exit %d, %q", r.Code, r.Stderr)
			}
			continue
		}
		if r.Code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.Code, r.Stderr)
		}
		for _, want := range []string{"PWNED", "TITLE", "polling", "Herds"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("%v: the report lacks %q (the hostile requests did not reach the log as planned?):\n%s", args[1:], want, r.Stdout)
			}
		}
	}

	// -o json keeps the values as the log has them.
	rep := runClients(t, "-f", a.AuditLog, "--server-version", "v1.37.2", "--watch-cache", "off")
	found := map[string]bool{}
	for _, cl := range rep.Clients {
		found["agent "+cl.UserAgent] = true
		found["user "+cl.User] = true
		for _, res := range cl.Resources {
			found["resource "+res.Resource] = true
		}
		for _, p := range cl.Patterns {
			if p.Name == clients.PatternPolling && strings.Contains(p.Evidence, hostileResource) {
				found["polling of the hostile resource"] = true
			}
		}
	}
	for _, hd := range rep.Herds {
		if strings.Contains(hd.Evidence, c1Agent+"-3") {
			found["a herd naming the hostile agents"] = true
		}
	}
	for _, want := range []string{"agent " + c1Agent, "user " + hostileUser, "resource " + hostileResource, "resource " + titleResource,
		"polling of the hostile resource", "a herd naming the hostile agents", "user system:anonymous"} {
		if !found[want] {
			t.Errorf("-o json lacks %q as the log has it", want)
		}
	}
	t.Logf("the raw ESC user agent reached the log: %v (Go's HTTP server refuses control bytes in header values)", found["agent "+hostileAgent])

	// Who served the lists: the server's own counter says storage, each.
	off := find(rep, "admin", cacheOffAgent)
	if off == nil {
		t.Fatal("the cache-off client is not in the report")
	}
	if off.Lists.Total != int64(lists) || off.StorageLists != stored || off.StorageUnknown != 0 {
		t.Errorf("--watch-cache off: %d lists, %d storage lists, %d not known; the server counted %d storage lists for %d lists", off.Lists.Total, off.StorageLists, off.StorageUnknown, stored, lists)
	}
	unknown := runClients(t, "-f", a.AuditLog, "--server-version", "v1.37.2")
	u := find(unknown, "admin", cacheOffAgent)
	if u == nil || u.StorageLists+u.StorageUnknown != stored || u.StorageUnknown == 0 {
		t.Errorf("watch cache not given: %+v; every list the cache would serve must be not known, the rest storage (%d in all)", u, stored)
	}
	r := framework.Run(t, "", time.Minute, "clients", "-f", a.AuditLog, "--server-version", "v1.37.2")
	if strings.Contains(r.Stdout, "from the watch cache:") || !strings.Contains(r.Stdout, "watch cache: not known") {
		t.Errorf("the watch cache's state not given, the report claims cache:\n%s", r.Stdout)
	}
}

// firstControl is the first C0 or C1 control (or DEL) in s other than a
// newline or a tab, and its byte offset.
func firstControl(s string) (int, string) {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return i, s[i : i+1]
		}
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return i, string(r)
		}
	}
	return 0, ""
}

// rawClient sends requests with exactly the bytes given (net/http's client
// refuses control bytes in a header; a hostile client does not).
type rawClient struct {
	t    *testing.T
	host string
	tls  *tls.Config
}

func newRawClient(t *testing.T, server, caFile string) *rawClient {
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &rawClient{t: t, host: u.Host, tls: &tls.Config{RootCAs: pool, ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}}}
}

// get sends one GET over HTTP/1.1 and returns its status line.
func (c *rawClient) get(path, agent, token string) string {
	c.t.Helper()
	conn, err := tls.Dial("tcp", c.host, c.tls)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + c.host + "\r\nUser-Agent: " + agent + "\r\nConnection: close\r\n"
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		c.t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return "no answer: " + err.Error()
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return strings.TrimPrefix(resp.Status, "HTTP/1.1 ")
}

// storageLists is the server's apiserver_storage_list_total for
// configmaps, summed over its labels.
func storageLists(t *testing.T, c *rawClient) int64 {
	t.Helper()
	return storageListsOf(t, c, "configmaps")
}

// storageListsOf is the server's apiserver_storage_list_total for
// resource, summed over its labels.
func storageListsOf(t *testing.T, c *rawClient, resource string) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", c.host, c.tls)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /metrics HTTP/1.1\r\nHost: "+c.host+"\r\nUser-Agent: watchrv-e2e-metrics\r\nAuthorization: Bearer "+framework.AdminToken+"\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var n int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "apiserver_storage_list_total{") && strings.Contains(l, `resource="`+resource+`"`) {
			f := strings.Fields(l)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatal(err)
			}
			n += int64(v)
		}
	}
	return n
}
